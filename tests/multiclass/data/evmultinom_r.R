# Reference numbers for tests/multiclass/test_evmultinom.py (R's nnet::multinom).
# Run: cd tests/multiclass/data && Rscript evmultinom_r.R > evmultinom_r.txt
library(nnet)
d <- read.csv("evmultinom_r.csv")
d$y <- factor(d$y)
fit <- multinom(y ~ s1 + s2, data = d, reltol = 1e-14, maxit = 1000, trace = FALSE)
s <- summary(fit)
options(digits = 15)
cat("coef", format(t(coef(fit)), digits = 15), "\n")
cat("se", format(t(s$standard.errors), digits = 15), "\n")
cat("deviance", format(deviance(fit), digits = 15), "\n")
cat("aic", format(AIC(fit), digits = 15), "\n")
cat("version", as.character(packageVersion("nnet")), R.version.string, "\n")
