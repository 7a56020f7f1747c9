"""``cp2025.utility``: the reference's helper modules as thin wrappers over pdanon's metrics,
recoders, distances and the generalization dtype."""
