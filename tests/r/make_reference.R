#!/usr/bin/env Rscript
# Reference values for mmlu_audit.inference from R's clubSandwich and sandwich.
#
# Writes, for each small design, tests/data/clubsandwich/<design>.csv (the data,
# 17 significant digits so doubles round-trip exactly) and <design>.json (the
# reference values). Deterministic: set.seed() per design, R's default RNG.
#
# Usage (from the repository root):  Rscript tests/r/make_reference.R [outdir]
suppressPackageStartupMessages({
  library(clubSandwich)
  library(sandwich)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
outdir <- if (length(args) >= 1) args[1] else file.path("tests", "data", "clubsandwich")
dir.create(outdir, showWarnings = FALSE, recursive = TRUE)

# Unequal cluster sizes, including a one-observation cluster; heteroskedastic errors.
make_unequal <- function() {
  set.seed(20240101)
  sizes <- c(1, 2, 3, 5, 8, 13, 21, 4, 9, 17, 6, 30)
  cl <- rep(seq_along(sizes), sizes)
  n <- length(cl)
  x1 <- rnorm(n); x2 <- runif(n); x3 <- rnorm(n) + rnorm(length(sizes))[cl]
  y <- 1 + 0.5 * x1 - 0.3 * x2 + rnorm(length(sizes), sd = 0.7)[cl] + rnorm(n) * (1 + abs(x1))
  list(data = data.frame(y, x1, x2, x3, cluster = cl), formula = y ~ x1 + x2 + x3,
       restrictions = list(slopes = 2:4, pair = 3:4))
}

# Like the homogeneity design: a STEM dummy constant within clusters and its interactions.
make_interaction <- function() {
  set.seed(20240202)
  G <- 40
  sizes <- sample(4:40, G, replace = TRUE)
  stem <- as.numeric(seq_len(G) <= 13)
  cl <- rep(seq_len(G), sizes)
  n <- length(cl)
  s <- stem[cl]
  x1 <- rnorm(n); x2 <- rexp(n); x3 <- rnorm(n) + 0.5 * rnorm(G)[cl]
  y <- 0.2 + 0.4 * x1 + 0.1 * x2 + s * (0.5 + 0.3 * x1) + rnorm(G, sd = 0.5)[cl] + rnorm(n) * exp(0.3 * x2)
  d <- data.frame(y, x1, x2, x3, stem = s, stem_x1 = s * x1, stem_x2 = s * x2, stem_x3 = s * x3, cluster = cl)
  list(data = d, formula = y ~ x1 + x2 + x3 + stem + stem_x1 + stem_x2 + stem_x3,
       restrictions = list(interactions = 6:8, interactions_and_stem = 5:8))
}

# Many clusters (60), five predictors, moderate sizes.
make_many <- function() {
  set.seed(20240303)
  G <- 60
  sizes <- sample(2:25, G, replace = TRUE)
  cl <- rep(seq_len(G), sizes)
  n <- length(cl)
  X <- matrix(rnorm(n * 5), n, 5) + matrix(rnorm(G * 5), G, 5)[cl, ]
  colnames(X) <- paste0("x", 1:5)
  y <- drop(X %*% c(0.3, 0, -0.2, 0.1, 0)) + rnorm(G)[cl] + rt(n, df = 5)
  list(data = data.frame(y, X, cluster = cl), formula = y ~ x1 + x2 + x3 + x4 + x5,
       restrictions = list(nulls = c(3, 6), all_slopes = 2:6))
}

# Cluster fixed effects for three clusters: I - H_gg is singular there (pseudo-inverse path).
make_fixed_effects <- function() {
  set.seed(20240404)
  G <- 15
  sizes <- sample(3:12, G, replace = TRUE)
  cl <- rep(seq_len(G), sizes)
  n <- length(cl)
  x1 <- rnorm(n); x2 <- rnorm(n)
  fe1 <- as.numeric(cl == 1); fe2 <- as.numeric(cl == 2); fe3 <- as.numeric(cl == 3)
  y <- 1 + x1 - 0.5 * x2 + rnorm(G)[cl] + rnorm(n)
  list(data = data.frame(y, x1, x2, fe1, fe2, fe3, cluster = cl),
       formula = y ~ x1 + x2 + fe1 + fe2 + fe3, restrictions = list(slopes = 2:3))
}

constraint_matrix <- function(idx, p) {
  C <- matrix(0, length(idx), p)
  C[cbind(seq_along(idx), idx)] <- 1
  C
}

reference_values <- function(spec) {
  d <- spec$data
  fit <- lm(spec$formula, data = d)
  p <- length(coef(fit))
  cr2 <- vcovCR(fit, cluster = d$cluster, type = "CR2")
  cr1s <- vcovCR(fit, cluster = d$cluster, type = "CR1S")
  cr0 <- vcovCR(fit, cluster = d$cluster, type = "CR0")
  ct2 <- coef_test(fit, vcov = cr2, test = "Satterthwaite")
  ct1 <- coef_test(fit, vcov = cr1s, test = "Satterthwaite")
  wald <- lapply(names(spec$restrictions), function(nm) {
    C <- constraint_matrix(spec$restrictions[[nm]], p)
    one <- function(V, kind) {
      w <- Wald_test(fit, constraints = C, vcov = V, test = c("chi-sq", "Naive-F", "HTZ"))
      list(name = nm, kind = kind, columns = spec$restrictions[[nm]] - 1L,
           test = w$test, Fstat = w$Fstat, delta = w$delta,
           df_num = w$df_num, df_denom = w$df_denom, p_val = w$p_val)
    }
    list(one(cr2, "CR2"), one(cr1s, "CR1"))
  })
  mat <- function(V) unname(as.matrix(V))
  list(
    terms = names(coef(fit)), n = nrow(d), n_clusters = length(unique(d$cluster)),
    coef = unname(coef(fit)),
    vcov = list(
      CR0 = mat(cr0), CR1S = mat(cr1s), CR2 = mat(cr2),
      vcovCL_HC1 = mat(vcovCL(fit, cluster = ~cluster, type = "HC1", cadjust = TRUE)),
      HC0 = mat(vcovHC(fit, type = "HC0")), HC1 = mat(vcovHC(fit, type = "HC1")),
      HC2 = mat(vcovHC(fit, type = "HC2")), HC3 = mat(vcovHC(fit, type = "HC3"))
    ),
    coef_test = list(
      CR2 = list(se = ct2$SE, tstat = ct2$tstat, df = ct2$df_Satt, p = ct2$p_Satt),
      CR1 = list(se = ct1$SE, tstat = ct1$tstat, df = ct1$df_Satt, p = ct1$p_Satt)
    ),
    wald = unlist(wald, recursive = FALSE),
    software = list(R = R.version.string, clubSandwich = as.character(packageVersion("clubSandwich")),
                    sandwich = as.character(packageVersion("sandwich")))
  )
}

designs <- list(unequal = make_unequal, interaction = make_interaction,
                many = make_many, fixed_effects = make_fixed_effects)
for (nm in names(designs)) {
  spec <- designs[[nm]]()
  d <- spec$data
  fmt <- as.data.frame(lapply(d, function(col) sprintf("%.17g", col)))
  write.csv(fmt, file.path(outdir, paste0(nm, ".csv")), row.names = FALSE, quote = FALSE)
  ref <- reference_values(spec)
  write(toJSON(ref, digits = NA, auto_unbox = TRUE, pretty = TRUE),
        file.path(outdir, paste0(nm, ".json")))
  cat("wrote", nm, "\n")
}
