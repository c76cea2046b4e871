# Reference numbers for tests/glm/test_glm_verbs_r.py: R's predict.glm (type = "link" and
# "response", se.fit = TRUE), residuals.glm (four types), anova(..., test = "Chisq") for glm and
# nnet::multinom, and update.formula.
# Run from the repository root:  Rscript tests/glm/data/glm_verbs_r.R tests/glm/data
# (writes glm_verbs_r.csv and update_formula_r.csv into that folder; R >= 4.0 with nnet).
args <- commandArgs(trailingOnly = TRUE)
out_dir <- if (length(args)) args[1] else "tests/glm/data"
root <- if (length(args) > 1) args[2] else "."
suppressMessages(library(nnet))

rows <- list()
put <- function(case, key, v) {
  v <- as.numeric(v)
  rows[[length(rows) + 1]] <<- data.frame(case = case, key = key, i = seq_along(v) - 1L,
                                          value = sprintf("%.17g", v), stringsAsFactors = FALSE)
}

# ---- sonar scores (data/sonar_scores.csv): calibration and test rows ---------------------------
s <- read.csv(file.path(root, "data", "sonar_scores.csv"))
cal <- s[s$set == "calibration", ]
test <- s[s$set == "test", ]
npos <- sum(cal$y == 1); nneg <- sum(cal$y == 0)
cal$t <- ifelse(cal$y == 1, (npos + 1) / (npos + 2), 1 / (nneg + 2))  # Platt's targets

verbs <- function(case, fit) {
  for (type in c("link", "response")) {
    p <- predict(fit, newdata = test, type = type, se.fit = TRUE)
    put(case, paste0(type, ".fit"), p$fit)
    put(case, paste0(type, ".se"), p$se.fit)
  }
  for (type in c("deviance", "pearson", "response", "working")) {
    put(case, paste0("resid.", type), residuals(fit, type = type))
  }
  put(case, "deviance", deviance(fit))
}
for (targets in c("binary", "platt")) {
  f <- if (targets == "binary") y ~ svm1 + svm2 + svm3 else t ~ svm1 + svm2 + svm3
  fit <- suppressWarnings(glm(f, family = binomial, data = cal, control = glm.control(epsilon = 1e-14, maxit = 100)))
  verbs(paste0("sonar.", targets), fit)
  fits <- lapply(c("~ svm1", "~ svm1 + svm2", "~ svm1 + svm2 + svm3"), function(r)
    suppressWarnings(update(fit, as.formula(paste(". ", r)))))
  a <- do.call(anova, c(fits, test = "Chisq"))
  for (col in names(a)) put(paste0("sonar.anova.", targets), col, a[[col]])
  a <- suppressWarnings(anova(fit, test = "Chisq"))  # one model: terms added sequentially
  for (col in names(a)) put(paste0("sonar.anova_seq.", targets), col, a[[col]])
  a <- anova(fits[[3]], fits[[1]], test = "Chisq")  # decreasing order: negative Df
  for (col in names(a)) put(paste0("sonar.anova_down.", targets), col, a[[col]])
}

# ---- budworm (Venables and Ripley 2002), one row per insect -----------------------------------
ldose <- rep(0:5, 2); numdead <- c(1, 4, 9, 13, 18, 20, 0, 2, 6, 10, 12, 16)
sex <- rep(c("M", "F"), c(6, 6))
bw <- do.call(rbind, lapply(1:12, function(g) data.frame(
  dead = rep(c(1, 0), c(numdead[g], 20 - numdead[g])), ldose = ldose[g], sex = sex[g])))
ctl <- glm.control(epsilon = 1e-14, maxit = 100)
b1 <- glm(dead ~ ldose, family = binomial, data = bw, control = ctl)
b2 <- glm(dead ~ sex + ldose, family = binomial, data = bw, control = ctl)
b3 <- glm(dead ~ sex * ldose, family = binomial, data = bw, control = ctl)
a <- anova(b1, b2, b3, test = "Chisq")
for (col in names(a)) put("budworm.anova", col, a[[col]])
a <- anova(b3, test = "Chisq")
for (col in names(a)) put("budworm.anova_seq", col, a[[col]])
a <- anova(glm(dead ~ ldose + sex - 1, family = binomial, data = bw, control = ctl), test = "Chisq")
for (col in names(a)) put("budworm.anova_seq_nointercept", col, a[[col]])
new <- data.frame(ldose = c(0.5, 2, 3.25, 6), sex = c("F", "M", "F", "M"))
for (type in c("link", "response")) {
  p <- predict(b3, newdata = new, type = type, se.fit = TRUE)
  put("budworm.sexldose", paste0(type, ".fit"), p$fit)
  put("budworm.sexldose", paste0(type, ".se"), p$se.fit)
}
for (type in c("deviance", "pearson", "response", "working")) {
  put("budworm.sexldose", paste0("resid.", type), residuals(b3, type = type))
}

# ---- nnet::multinom (tests/multiclass/data/evmultinom_r.csv) ---------------------------------
d <- read.csv(file.path(root, "tests", "multiclass", "data", "evmultinom_r.csv"))
d$y <- factor(d$y)
m1 <- multinom(y ~ s1, data = d, reltol = 1e-14, maxit = 1000, trace = FALSE)
m2 <- multinom(y ~ s1 + s2, data = d, reltol = 1e-14, maxit = 1000, trace = FALSE)
a <- anova(m1, m2)
put("multinom.anova", "Resid. df", a[["Resid. df"]])
put("multinom.anova", "Resid. Dev", a[["Resid. Dev"]])
put("multinom.anova", "Df", a[["   Df"]])
put("multinom.anova", "LR stat.", a[["LR stat."]])
put("multinom.anova", "Pr(Chi)", a[["Pr(Chi)"]])
newm <- data.frame(s1 = c(-1, 0, 0.5, 2), s2 = c(0.3, -1, 1, 2))
pr <- predict(m2, newdata = newm, type = "probs")
put("multinom.s1s2", "probs", t(pr))  # row by row: the classes of row 1, then row 2, ...
put("multinom.s1s2", "resid.response", t(residuals(m2)))  # y_k - p_k, row by row

write.csv(do.call(rbind, rows), file.path(out_dir, "glm_verbs_r.csv"), row.names = FALSE)

# ---- update.formula ---------------------------------------------------------------------------
cases <- list(
  c("y ~ svm1 + svm2 + svm3", "~ . - svm3"),
  c("y ~ svm1 + svm2 + svm3", ". ~ . - svm3"),
  c("y ~ svm1", "~ . + svm2"),
  c("y ~ svm1 + svm2", "~ . + svm1:svm2"),
  c("y ~ svm1 * svm2", "~ . - svm1:svm2"),
  c("y ~ svm1 * svm2", "~ . - svm1"),
  c("y ~ svm1 + svm2", "~ . - 1"),
  c("y ~ svm1 + svm2 - 1", "~ . + 1"),
  c("y ~ svm1 + svm2", "z ~ ."),
  c("y ~ svm1 + svm2", "~ svm3"),
  c("y ~ svm1 + svm2", "~ svm3 + ."),
  c("y ~ svm1 + svm2", "~ (.) * svm3"),
  c("y ~ svm1 + svm2 + svm3", "~ . - svm1 - svm2 - svm3"),
  c("y ~ svm1 + svm2", "~ . + log(svm3)"),
  c("y ~ log(svm1) + svm2", "~ . - log(svm1)"),
  c("y ~ svm1 + svm2", "log(.) ~ .")
)
up <- do.call(rbind, lapply(cases, function(cc) data.frame(
  old = cc[1], new = cc[2],
  result = paste(deparse(update.formula(as.formula(cc[1]), as.formula(cc[2]))), collapse = " "),
  stringsAsFactors = FALSE)))
write.csv(up, file.path(out_dir, "update_formula_r.csv"), row.names = FALSE)
cat("R", R.version.string, "nnet", as.character(packageVersion("nnet")), "\n")
