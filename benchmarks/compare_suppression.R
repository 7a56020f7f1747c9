# The R side of benchmarks/compare_suppression.py: run one peer (GaussSuppression or
# sdcTable) on one table that the Python script exported, and write the peer's pattern as CSV
# keyed by the cells' labels.
#
#   Rscript compare_suppression.R spec.json
#
# spec.json (written by the Python script):
#   kind       "count" (data: every leaf combination with its frequency `freq`) or "sum"
#              (data: the microdata, one row per contributor, amount in `value`)
#   dims       dimension names;  hier: dim -> CSV with columns levels ("@", "@@", ...), codes
#   rule       {"maxN": 2} | {"n": 2, "k": 85} | {"p": 10}
#   tool       "gauss" | "gauss-int" | "sdctable";  method: HITAS | OPT | SIMPLEHEURISTIC
#   levels     (for alignment) CSV: dims, primary (0/1), lower, upper -- pdanon's primary
#              cells and protection levels
#   align      TRUE: give the peer pdanon's primary cells (and levels where its API takes them)
#   levels_sum TRUE: sdcTable gets pdanon's levels on a magnitude table too (rounded up)
#   time_limit seconds (sdcTable: rounded up to whole minutes, its unit)
#   out        output CSV: dims, value, primary_own, primary, suppressed
#   info       output JSON: seconds (the protection call only), versions, notes
suppressPackageStartupMessages({
  library(jsonlite)
})
args <- commandArgs(trailingOnly = TRUE)
spec <- fromJSON(args[1], simplifyVector = TRUE)
dims <- spec$dims
nd <- length(dims)
hier <- lapply(dims, function(d) read.csv(spec$hier[[d]], colClasses = "character"))
names(hier) <- dims
d <- read.csv(spec$data, colClasses = c(rep("character", nd), "numeric"))
lv <- read.csv(spec$levels, colClasses = c(rep("character", nd), "integer", "numeric", "numeric"))
key_of <- function(df) do.call(paste, c(unname(as.list(df[dims])), sep = "\r"))
lv_key <- key_of(lv)
info <- list(tool = spec$tool, method = spec$method, notes = character(0))
note <- function(...) info$notes <<- c(info$notes, paste0(...))

write_out <- function(cells, value, primary_own, primary, suppressed) {
  out <- as.data.frame(cells[dims])
  out$value <- value
  out$primary_own <- as.integer(primary_own)
  out$primary <- as.integer(primary)
  out$suppressed <- as.integer(suppressed)
  write.csv(out, spec$out, row.names = FALSE)
}

run_gauss <- function() {
  suppressPackageStartupMessages(library(GaussSuppression))
  info$version <<- as.character(packageVersion("GaussSuppression"))
  info$ssbtools <<- as.character(packageVersion("SSBtools"))
  intervals <- spec$tool == "gauss-int"
  lp <- if (intervals) "Rglpk" else NULL
  if (spec$kind == "count") {
    maxN <- spec$rule$maxN
    own <- function(freq, ...) freq > 0 & freq <= maxN
    if (isTRUE(spec$align)) {
      # pdanon's primary cells and levels: lomax = value - lower, upmin = value + upper
      prim <- function(freq, crossTable, ...) {
        k <- match(key_of(crossTable), lv_key)
        p <- !is.na(k) & lv$primary[k] == 1
        if (!intervals) return(p)
        up <- ifelse(p, freq + lv$upper[k], NA)
        lo <- ifelse(p, pmax(0, freq - lv$lower[k]), NA)
        list(primary = p, numExtra = data.frame(upmin_freq = up, lomax_freq = lo))
      }
    } else {
      prim <- function(freq, ...) {
        p <- own(freq)
        if (!intervals) return(p)
        list(primary = p, numExtra = data.frame(upmin_freq = ifelse(p, freq + 1, NA),
                                                rlim_freq = ifelse(p, 2, NA)))
      }
    }
    t0 <- Sys.time()
    res <- GaussSuppressionFromData(d, freqVar = "freq", hierarchies = hier,
                                    primary = prim, protectZeros = FALSE, maxN = maxN,
                                    extend0 = TRUE, printInc = FALSE, lpPackage = lp)
    info$seconds <<- as.numeric(difftime(Sys.time(), t0, units = "secs"))
    write_out(res, res$freq, own(res$freq), res$primary, res$suppressed)
  } else {
    r <- spec$rule
    t0 <- Sys.time()
    args <- list(data = d, numVar = "value", hierarchies = hier, printInc = FALSE,
                 protectZeros = FALSE, lpPackage = lp, protectionIntervals = intervals,
                 allDominance = TRUE)
    if (!is.null(r$p)) args$pPercent <- r$p else { args$n <- r$n; args$k <- r$k }
    if (isTRUE(spec$align)) note("magnitude: the peer's own rule is used (no alignment)")
    res <- do.call(SuppressDominantCells, args)
    info$seconds <<- as.numeric(difftime(Sys.time(), t0, units = "secs"))
    write_out(res, res$value, res$primary, res$primary, res$suppressed)
  }
}

run_sdctable <- function() {
  suppressPackageStartupMessages(library(sdcTable))
  info$version <<- as.character(packageVersion("sdcTable"))
  r <- spec$rule
  if (spec$kind == "count") {
    prob <- makeProblem(data = d, dimList = hier, freqVarInd = match("freq", names(d)))
    prob <- primarySuppression(prob, type = "freq", maxN = r$maxN, allowZeros = FALSE)
  } else {
    prob <- makeProblem(data = d, dimList = hier, numVarInd = match("value", names(d)))
    if (!is.null(r$p)) {
      prob <- primarySuppression(prob, type = "p", p = r$p, numVarName = "value")
    } else {
      prob <- primarySuppression(prob, type = "nk", n = r$n, k = r$k, numVarName = "value")
    }
  }
  cells <- as.data.frame(sdcProb2df(prob, addDups = FALSE, addNumVars = TRUE,
                                    dimCodes = "original"))
  own <- cells$sdcStatus == "u"
  info$default_UPL <<- unique(getInfo(prob, "UPL")[own])
  info$default_LPL <<- unique(getInfo(prob, "LPL")[own])
  if (isTRUE(spec$align)) {
    k <- match(key_of(cells), lv_key)
    p <- !is.na(k) & lv$primary[k] == 1
    flip_on <- which(p & !own)
    flip_off <- which(!p & own)
    if (length(flip_on)) prob <- setInfo(prob, "sdcStatus", flip_on, rep("u", length(flip_on)))
    if (length(flip_off)) prob <- setInfo(prob, "sdcStatus", flip_off, rep("s", length(flip_off)))
    if (spec$kind == "count" || isTRUE(spec$levels_sum)) {
      ip <- which(p)  # sdcTable keeps the levels as integers: rounded up
      prob <- setInfo(prob, "UPL", ip, ceiling(lv$upper[k[ip]]))
      prob <- setInfo(prob, "LPL", ip, ceiling(lv$lower[k[ip]]))
    } else {
      note("magnitude: pdanon's primary cells, sdcTable's own protection levels")
    }
    used <- p
  } else {
    used <- own
  }
  t0 <- Sys.time()
  minutes <- max(1, ceiling(spec$time_limit / 60))
  res <- if (spec$method %in% c("OPT", "HITAS")) {
    protectTable(prob, method = spec$method, timeLimit = minutes, verbose = FALSE)
  } else {
    protectTable(prob, method = spec$method, verbose = FALSE)
  }
  info$seconds <<- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  fin <- as.data.frame(getInfo(res, type = "finalData"))
  fin <- fin[!duplicated(key_of(fin)), ]
  m <- match(key_of(cells), key_of(fin))
  st <- as.character(fin$sdcStatus[m])
  value <- if (spec$kind == "count") cells$freq else cells$value
  write_out(cells, value, own, used, !is.na(st) & st %in% c("u", "x"))
}

ok <- tryCatch({
  if (spec$tool %in% c("gauss", "gauss-int")) run_gauss() else run_sdctable()
  TRUE
}, error = function(e) {
  info$error <<- conditionMessage(e)
  FALSE
})
writeLines(toJSON(info, auto_unbox = TRUE, null = "null"), spec$info)
quit(status = if (ok) 0 else 3)
