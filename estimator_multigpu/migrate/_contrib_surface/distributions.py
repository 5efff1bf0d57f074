"""tf.contrib.distributions of TF 1.15: each public name and its TF 2.x outcome."""

# Written by tools/contrib_surface.py from TF 1.15's sources; edit the
# overrides in tools/contrib_fates.py and run it again rather than this file.

FATE = "delete (moved to tensorflow/probability)"
ADVICE = "TensorFlow Probability (pip install tensorflow-probability; import tensorflow_probability as tfp) carries it: tfp.distributions, tfp.bijectors, tfp.monte_carlo; check its arguments"
# name -> (outcome, successor, note). outcome: "exact" (the successor takes the
# same arguments; --fix writes it), "emg" (the emg drop-in), "none" (note:
# why there is none; ADVICE says what to do).
ROWS = {
    "Autoregressive": ("none", "", ""),
    "BatchReshape": ("none", "", ""),
    "Bernoulli": ("exact", "tf.compat.v1.distributions.Bernoulli", ""),
    "Beta": ("exact", "tf.compat.v1.distributions.Beta", ""),
    "BetaWithSoftplusConcentration": ("none", "", ""),
    "Binomial": ("none", "", ""),
    "Categorical": ("exact", "tf.compat.v1.distributions.Categorical", ""),
    "Cauchy": ("none", "", ""),
    "Chi2": ("none", "", ""),
    "Chi2WithAbsDf": ("none", "", ""),
    "ConditionalDistribution": ("none", "", ""),
    "ConditionalTransformedDistribution": ("none", "", ""),
    "Deterministic": ("none", "", ""),
    "Dirichlet": ("exact", "tf.compat.v1.distributions.Dirichlet", ""),
    "DirichletMultinomial": (
        "exact",
        "tf.compat.v1.distributions.DirichletMultinomial",
        "",
    ),
    "Distribution": ("exact", "tf.compat.v1.distributions.Distribution", ""),
    "ExpRelaxedOneHotCategorical": ("none", "", ""),
    "Exponential": ("exact", "tf.compat.v1.distributions.Exponential", ""),
    "ExponentialWithSoftplusRate": ("none", "", ""),
    "FULLY_REPARAMETERIZED": (
        "exact",
        "tf.compat.v1.distributions.FULLY_REPARAMETERIZED",
        "",
    ),
    "Gamma": ("exact", "tf.compat.v1.distributions.Gamma", ""),
    "GammaWithSoftplusConcentrationRate": ("none", "", ""),
    "Geometric": ("none", "", ""),
    "HalfNormal": ("none", "", ""),
    "Independent": ("none", "", ""),
    "InverseGamma": ("none", "", ""),
    "InverseGammaWithSoftplusConcentrationRate": ("none", "", ""),
    "Kumaraswamy": ("none", "", ""),
    "Laplace": ("exact", "tf.compat.v1.distributions.Laplace", ""),
    "LaplaceWithSoftplusScale": ("none", "", ""),
    "Logistic": ("none", "", ""),
    "Mixture": ("none", "", ""),
    "MixtureSameFamily": ("none", "", ""),
    "Multinomial": ("exact", "tf.compat.v1.distributions.Multinomial", ""),
    "MultivariateNormalDiag": ("none", "", ""),
    "MultivariateNormalDiagPlusLowRank": ("none", "", ""),
    "MultivariateNormalDiagWithSoftplusScale": ("none", "", ""),
    "MultivariateNormalFullCovariance": ("none", "", ""),
    "MultivariateNormalTriL": ("none", "", ""),
    "NOT_REPARAMETERIZED": (
        "exact",
        "tf.compat.v1.distributions.NOT_REPARAMETERIZED",
        "",
    ),
    "NegativeBinomial": ("none", "", ""),
    "Normal": ("exact", "tf.compat.v1.distributions.Normal", ""),
    "NormalWithSoftplusScale": ("none", "", ""),
    "OneHotCategorical": ("none", "", ""),
    "Poisson": ("none", "", ""),
    "PoissonLogNormalQuadratureCompound": ("none", "", ""),
    "QuantizedDistribution": ("none", "", ""),
    "RegisterKL": ("exact", "tf.compat.v1.distributions.RegisterKL", ""),
    "RelaxedBernoulli": ("none", "", ""),
    "RelaxedOneHotCategorical": ("none", "", ""),
    "ReparameterizationType": (
        "exact",
        "tf.compat.v1.distributions.ReparameterizationType",
        "",
    ),
    "SeedStream": ("none", "", ""),
    "SinhArcsinh": ("none", "", ""),
    "StudentT": ("exact", "tf.compat.v1.distributions.StudentT", ""),
    "StudentTWithAbsDfSoftplusScale": ("none", "", ""),
    "TransformedDistribution": ("none", "", ""),
    "Uniform": ("exact", "tf.compat.v1.distributions.Uniform", ""),
    "VectorDeterministic": ("none", "", ""),
    "VectorDiffeomixture": ("none", "", ""),
    "VectorExponentialDiag": ("none", "", ""),
    "VectorLaplaceDiag": ("none", "", ""),
    "VectorSinhArcsinhDiag": ("none", "", ""),
    "WishartCholesky": ("none", "", ""),
    "WishartFull": ("none", "", ""),
    "assign_log_moving_mean_exp": ("none", "", ""),
    "assign_moving_mean_variance": ("none", "", ""),
    "auto_correlation": ("none", "", ""),
    "bijectors": ("none", "", ""),
    "estimator_head_distribution_regression": ("none", "", ""),
    "fill_triangular": ("none", "", ""),
    "fill_triangular_inverse": ("none", "", ""),
    "kl_divergence": ("exact", "tf.compat.v1.distributions.kl_divergence", ""),
    "matrix_diag_transform": ("none", "", ""),
    "moving_mean_variance": ("none", "", ""),
    "normal_conjugates_known_scale_posterior": ("none", "", ""),
    "normal_conjugates_known_scale_predictive": ("none", "", ""),
    "percentile": ("none", "", ""),
    "quadrature_scheme_lognormal_gauss_hermite": ("none", "", ""),
    "quadrature_scheme_lognormal_quantiles": ("none", "", ""),
    "quadrature_scheme_softmaxnormal_gauss_hermite": ("none", "", ""),
    "quadrature_scheme_softmaxnormal_quantiles": ("none", "", ""),
    "reduce_weighted_logsumexp": ("none", "", ""),
    "softplus_inverse": ("none", "", ""),
    "tridiag": ("none", "", ""),
}
# name -> {keyword of contrib's: the successor's}, for exact successors.
RENAMES = {}
# internal module -> {its name: the public name} ("": the module itself).
SOURCES = {
    "tf.contrib.distributions.python.ops.autoregressive": {
        "Autoregressive": "Autoregressive"
    },
    "tf.contrib.distributions.python.ops.batch_reshape": {
        "BatchReshape": "BatchReshape"
    },
    "tf.contrib.distributions.python.ops.bijectors": {"": "bijectors"},
    "tf.contrib.distributions.python.ops.binomial": {"Binomial": "Binomial"},
    "tf.contrib.distributions.python.ops.cauchy": {"Cauchy": "Cauchy"},
    "tf.contrib.distributions.python.ops.chi2": {
        "Chi2": "Chi2",
        "Chi2WithAbsDf": "Chi2WithAbsDf",
    },
    "tf.contrib.distributions.python.ops.conditional_distribution": {
        "ConditionalDistribution": "ConditionalDistribution"
    },
    "tf.contrib.distributions.python.ops.conditional_transformed_distribution": {
        "ConditionalTransformedDistribution": "ConditionalTransformedDistribution"
    },
    "tf.contrib.distributions.python.ops.deterministic": {
        "Deterministic": "Deterministic",
        "VectorDeterministic": "VectorDeterministic",
    },
    "tf.contrib.distributions.python.ops.estimator": {
        "estimator_head_distribution_regression": "estimator_head_distribution_regression"
    },
    "tf.contrib.distributions.python.ops.geometric": {"Geometric": "Geometric"},
    "tf.contrib.distributions.python.ops.half_normal": {"HalfNormal": "HalfNormal"},
    "tf.contrib.distributions.python.ops.independent": {"Independent": "Independent"},
    "tf.contrib.distributions.python.ops.inverse_gamma": {
        "InverseGamma": "InverseGamma",
        "InverseGammaWithSoftplusConcentrationRate": "InverseGammaWithSoftplusConcentrationRate",
    },
    "tf.contrib.distributions.python.ops.kumaraswamy": {"Kumaraswamy": "Kumaraswamy"},
    "tf.contrib.distributions.python.ops.logistic": {"Logistic": "Logistic"},
    "tf.contrib.distributions.python.ops.mixture": {"Mixture": "Mixture"},
    "tf.contrib.distributions.python.ops.mixture_same_family": {
        "MixtureSameFamily": "MixtureSameFamily"
    },
    "tf.contrib.distributions.python.ops.moving_stats": {
        "assign_log_moving_mean_exp": "assign_log_moving_mean_exp",
        "assign_moving_mean_variance": "assign_moving_mean_variance",
        "moving_mean_variance": "moving_mean_variance",
    },
    "tf.contrib.distributions.python.ops.mvn_diag": {
        "MultivariateNormalDiag": "MultivariateNormalDiag",
        "MultivariateNormalDiagWithSoftplusScale": "MultivariateNormalDiagWithSoftplusScale",
    },
    "tf.contrib.distributions.python.ops.mvn_diag_plus_low_rank": {
        "MultivariateNormalDiagPlusLowRank": "MultivariateNormalDiagPlusLowRank"
    },
    "tf.contrib.distributions.python.ops.mvn_full_covariance": {
        "MultivariateNormalFullCovariance": "MultivariateNormalFullCovariance"
    },
    "tf.contrib.distributions.python.ops.mvn_tril": {
        "MultivariateNormalTriL": "MultivariateNormalTriL"
    },
    "tf.contrib.distributions.python.ops.negative_binomial": {
        "NegativeBinomial": "NegativeBinomial"
    },
    "tf.contrib.distributions.python.ops.normal_conjugate_posteriors": {
        "normal_conjugates_known_scale_posterior": "normal_conjugates_known_scale_posterior",
        "normal_conjugates_known_scale_predictive": "normal_conjugates_known_scale_predictive",
    },
    "tf.contrib.distributions.python.ops.onehot_categorical": {
        "OneHotCategorical": "OneHotCategorical"
    },
    "tf.contrib.distributions.python.ops.poisson": {"Poisson": "Poisson"},
    "tf.contrib.distributions.python.ops.poisson_lognormal": {
        "PoissonLogNormalQuadratureCompound": "PoissonLogNormalQuadratureCompound",
        "quadrature_scheme_lognormal_gauss_hermite": "quadrature_scheme_lognormal_gauss_hermite",
        "quadrature_scheme_lognormal_quantiles": "quadrature_scheme_lognormal_quantiles",
    },
    "tf.contrib.distributions.python.ops.quantized_distribution": {
        "QuantizedDistribution": "QuantizedDistribution"
    },
    "tf.contrib.distributions.python.ops.relaxed_bernoulli": {
        "RelaxedBernoulli": "RelaxedBernoulli"
    },
    "tf.contrib.distributions.python.ops.relaxed_onehot_categorical": {
        "ExpRelaxedOneHotCategorical": "ExpRelaxedOneHotCategorical",
        "RelaxedOneHotCategorical": "RelaxedOneHotCategorical",
    },
    "tf.contrib.distributions.python.ops.sample_stats": {
        "auto_correlation": "auto_correlation",
        "percentile": "percentile",
    },
    "tf.contrib.distributions.python.ops.seed_stream": {"SeedStream": "SeedStream"},
    "tf.contrib.distributions.python.ops.sinh_arcsinh": {"SinhArcsinh": "SinhArcsinh"},
    "tf.contrib.distributions.python.ops.vector_diffeomixture": {
        "VectorDiffeomixture": "VectorDiffeomixture",
        "quadrature_scheme_softmaxnormal_gauss_hermite": "quadrature_scheme_softmaxnormal_gauss_hermite",
        "quadrature_scheme_softmaxnormal_quantiles": "quadrature_scheme_softmaxnormal_quantiles",
    },
    "tf.contrib.distributions.python.ops.vector_exponential_diag": {
        "VectorExponentialDiag": "VectorExponentialDiag"
    },
    "tf.contrib.distributions.python.ops.vector_laplace_diag": {
        "VectorLaplaceDiag": "VectorLaplaceDiag"
    },
    "tf.contrib.distributions.python.ops.vector_sinh_arcsinh_diag": {
        "VectorSinhArcsinhDiag": "VectorSinhArcsinhDiag"
    },
    "tf.contrib.distributions.python.ops.wishart": {
        "WishartCholesky": "WishartCholesky",
        "WishartFull": "WishartFull",
    },
}
