"""SciPy's private module paths, each with its public namespace and the names
the two share (`_scipy_private_paths`' table).

SciPy 1.8 renamed its implementation modules with a leading underscore and
left a stub at each old path (`scipy/ndimage/filters.py`, ...) that warns
and forwards the names of its `__all__`, to be removed in SciPy 2.0; the
sub-packages of `scipy.sparse.linalg` (`eigen.arpack`, `eigen.lobpcg`,
`isolve.*`, `dsolve.linsolve`) are gone already (`eigen`, `isolve` and
`dsolve` are one-module stubs). A row names a stub's names that its public
namespace holds as the same object (the identity checked against SciPy
1.17's stubs), and the names of the removed sub-packages' `__all__` that
`scipy.sparse.linalg` holds. A name the stub forwards to another object of
the same name (`scipy.io.mmio.mmread`, `scipy.optimize.linesearch.line_search`,
`scipy.interpolate.dfitpack.splev`) is in no row.
"""

from __future__ import annotations


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


# private module path -> (its public namespace, the names they share).
_ROWS = {
    "scipy.constants.codata": (
        "scipy.constants",
        "ConstantWarning c find physical_constants precision unit value",
    ),
    "scipy.constants.constants": (
        "scipy.constants",
        "Avogadro Boltzmann Btu Btu_IT Btu_th G Julian_year N_A Planck R "
        "Rydberg Stefan_Boltzmann Wien acre alpha angstrom arcmin arcminute "
        "arcsec arcsecond astronomical_unit atm atmosphere atomic_mass atto au "
        "bar barrel bbl blob c calorie calorie_IT calorie_th carat centi "
        "convert_temperature day deci degree degree_Fahrenheit deka dyn dyne e "
        "eV electron_mass electron_volt elementary_charge epsilon_0 erg exa "
        "exbi femto fermi fine_structure fluid_ounce fluid_ounce_US "
        "fluid_ounce_imp foot g gallon gallon_US gallon_imp gas_constant gibi "
        "giga golden golden_ratio grain gram gravitational_constant h hbar "
        "hectare hecto horsepower hour hp inch k kgf kibi kilo kilogram_force "
        "kmh knot lambda2nu lb lbf light_year liter litre long_ton m_e m_n m_p "
        "m_u mach mebi mega metric_ton micro micron mil mile milli minute mmHg "
        "mph mu_0 nano nautical_mile neutron_mass nu2lambda ounce oz parsec "
        "pebi peta pi pico point pound pound_force proton_mass psi pt short_ton "
        "sigma slinch slug speed_of_light speed_of_sound stone survey_foot "
        "survey_mile tebi tera ton_TNT torr troy_ounce troy_pound u week yard "
        "year yobi yocto yotta zebi zepto zero_Celsius zetta",
    ),
    "scipy.fftpack.basic": (
        "scipy.fftpack",
        "fft fft2 fftn ifft ifft2 ifftn irfft rfft",
    ),
    "scipy.fftpack.helper": (
        "scipy.fftpack",
        "fftfreq fftshift ifftshift next_fast_len rfftfreq",
    ),
    "scipy.fftpack.pseudo_diffs": (
        "scipy.fftpack",
        "cc_diff convolve cs_diff diff hilbert ihilbert itilbert sc_diff shift "
        "ss_diff tilbert",
    ),
    "scipy.fftpack.realtransforms": (
        "scipy.fftpack",
        "dct dctn dst dstn idct idctn idst idstn",
    ),
    "scipy.integrate.odepack": ("scipy.integrate", "ODEintWarning odeint"),
    "scipy.integrate.quadpack": (
        "scipy.integrate",
        "IntegrationWarning dblquad nquad quad tplquad",
    ),
    "scipy.interpolate.fitpack": (
        "scipy.interpolate",
        "BSpline bisplev bisplrep insert spalde splantider splder splev splint "
        "splprep splrep sproot",
    ),
    "scipy.interpolate.fitpack2": (
        "scipy.interpolate",
        "BivariateSpline InterpolatedUnivariateSpline LSQBivariateSpline "
        "LSQSphereBivariateSpline LSQUnivariateSpline RectBivariateSpline "
        "RectSphereBivariateSpline SmoothBivariateSpline "
        "SmoothSphereBivariateSpline UnivariateSpline",
    ),
    "scipy.interpolate.interpnd": (
        "scipy.interpolate",
        "CloughTocher2DInterpolator LinearNDInterpolator",
    ),
    "scipy.interpolate.interpolate": (
        "scipy.interpolate",
        "BPoly BSpline NdPPoly PPoly RectBivariateSpline "
        "RegularGridInterpolator interp1d interp2d interpn lagrange "
        "make_interp_spline",
    ),
    "scipy.interpolate.ndgriddata": (
        "scipy.interpolate",
        "CloughTocher2DInterpolator LinearNDInterpolator NearestNDInterpolator "
        "griddata",
    ),
    "scipy.interpolate.polyint": (
        "scipy.interpolate",
        "BarycentricInterpolator KroghInterpolator "
        "approximate_taylor_polynomial barycentric_interpolate "
        "krogh_interpolate",
    ),
    "scipy.interpolate.rbf": ("scipy.interpolate", "Rbf"),
    "scipy.io.arff.arffread": (
        "scipy.io.arff",
        "ArffError MetaData ParseArffError loadarff",
    ),
    "scipy.io.harwell_boeing": ("scipy.io", "hb_read hb_write"),
    "scipy.io.idl": ("scipy.io", "readsav"),
    "scipy.io.matlab.mio": ("scipy.io.matlab", "loadmat savemat whosmat"),
    "scipy.io.matlab.mio5": (
        "scipy.io.matlab",
        "MatReadError MatReadWarning MatWriteError MatlabFunction MatlabObject "
        "mat_struct varmats_from_mat",
    ),
    "scipy.io.matlab.mio5_params": (
        "scipy.io.matlab",
        "MatlabFunction MatlabObject MatlabOpaque mat_struct",
    ),
    "scipy.io.matlab.miobase": (
        "scipy.io.matlab",
        "MatReadError MatReadWarning MatWriteError",
    ),
    "scipy.io.netcdf": ("scipy.io", "netcdf_file netcdf_variable"),
    "scipy.linalg.basic": (
        "scipy.linalg",
        "LinAlgError LinAlgWarning det get_lapack_funcs inv lstsq "
        "matmul_toeplitz matrix_balance pinv pinvh solve solve_banded "
        "solve_circulant solve_toeplitz solve_triangular solveh_banded",
    ),
    "scipy.linalg.decomp": (
        "scipy.linalg",
        "LinAlgError cdf2rdf eig eig_banded eigh eigh_tridiagonal eigvals "
        "eigvals_banded eigvalsh eigvalsh_tridiagonal get_lapack_funcs "
        "hessenberg norm",
    ),
    "scipy.linalg.decomp_cholesky": (
        "scipy.linalg",
        "LinAlgError cho_factor cho_solve cho_solve_banded cholesky "
        "cholesky_banded get_lapack_funcs",
    ),
    "scipy.linalg.decomp_lu": (
        "scipy.linalg",
        "LinAlgWarning get_lapack_funcs lu lu_factor lu_solve",
    ),
    "scipy.linalg.decomp_qr": ("scipy.linalg", "get_lapack_funcs qr qr_multiply rq"),
    "scipy.linalg.decomp_schur": (
        "scipy.linalg",
        "LinAlgError eigvals get_lapack_funcs rsf2csf schur",
    ),
    "scipy.linalg.decomp_svd": (
        "scipy.linalg",
        "LinAlgError diagsvd get_lapack_funcs null_space orth subspace_angles "
        "svd svdvals",
    ),
    "scipy.linalg.matfuncs": (
        "scipy.linalg",
        "coshm cosm expm expm_cond expm_frechet fractional_matrix_power funm "
        "inv khatri_rao logm norm rsf2csf schur signm sinhm sinm solve sqrtm "
        "svd tanhm tanm",
    ),
    "scipy.linalg.misc": (
        "scipy.linalg",
        "LinAlgError LinAlgWarning get_blas_funcs get_lapack_funcs norm",
    ),
    "scipy.linalg.special_matrices": (
        "scipy.linalg",
        "block_diag circulant companion convolution_matrix dft fiedler "
        "fiedler_companion hadamard hankel helmert hilbert invhilbert invpascal "
        "leslie pascal toeplitz",
    ),
    "scipy.ndimage.filters": (
        "scipy.ndimage",
        "convolve convolve1d correlate correlate1d gaussian_filter "
        "gaussian_filter1d gaussian_gradient_magnitude gaussian_laplace "
        "generic_filter generic_filter1d generic_gradient_magnitude "
        "generic_laplace laplace maximum_filter maximum_filter1d median_filter "
        "minimum_filter minimum_filter1d percentile_filter prewitt rank_filter "
        "sobel uniform_filter uniform_filter1d",
    ),
    "scipy.ndimage.fourier": (
        "scipy.ndimage",
        "fourier_ellipsoid fourier_gaussian fourier_shift fourier_uniform",
    ),
    "scipy.ndimage.interpolation": (
        "scipy.ndimage",
        "affine_transform geometric_transform map_coordinates rotate shift "
        "spline_filter spline_filter1d zoom",
    ),
    "scipy.ndimage.measurements": (
        "scipy.ndimage",
        "center_of_mass extrema find_objects histogram label "
        "labeled_comprehension maximum maximum_position mean median minimum "
        "minimum_position standard_deviation sum sum_labels variance "
        "watershed_ift",
    ),
    "scipy.ndimage.morphology": (
        "scipy.ndimage",
        "binary_closing binary_dilation binary_erosion binary_fill_holes "
        "binary_hit_or_miss binary_opening binary_propagation black_tophat "
        "distance_transform_bf distance_transform_cdt distance_transform_edt "
        "generate_binary_structure grey_closing grey_dilation grey_erosion "
        "grey_opening iterate_structure morphological_gradient "
        "morphological_laplace white_tophat",
    ),
    "scipy.optimize.cobyla": ("scipy.optimize", "OptimizeResult fmin_cobyla"),
    "scipy.optimize.lbfgsb": (
        "scipy.optimize",
        "LbfgsInvHessProduct OptimizeResult fmin_l_bfgs_b",
    ),
    "scipy.optimize.minpack": (
        "scipy.optimize",
        "OptimizeResult OptimizeWarning curve_fit fixed_point fsolve "
        "least_squares leastsq",
    ),
    "scipy.optimize.nonlin": (
        "scipy.optimize",
        "BroydenFirst InverseJacobian KrylovJacobian anderson broyden1 broyden2 "
        "diagbroyden excitingmixing linearmixing newton_krylov",
    ),
    "scipy.optimize.optimize": (
        "scipy.optimize",
        "OptimizeResult OptimizeWarning approx_fprime bracket brent brute "
        "check_grad fmin fmin_bfgs fmin_cg fmin_ncg fmin_powell fminbound "
        "golden line_search rosen rosen_der rosen_hess rosen_hess_prod "
        "show_options",
    ),
    "scipy.optimize.slsqp": ("scipy.optimize", "OptimizeResult fmin_slsqp"),
    "scipy.optimize.tnc": ("scipy.optimize", "OptimizeResult fmin_tnc"),
    "scipy.optimize.zeros": (
        "scipy.optimize",
        "RootResults bisect brenth brentq newton ridder toms748",
    ),
    "scipy.signal.bsplines": (
        "scipy.signal",
        "cspline1d cspline1d_eval cspline2d gauss_spline qspline1d "
        "qspline1d_eval sepfir2d spline_filter",
    ),
    "scipy.signal.filter_design": (
        "scipy.signal",
        "BadCoefficients band_stop_obj bessel besselap bilinear bilinear_zpk "
        "buttap butter buttord cheb1ap cheb1ord cheb2ap cheb2ord cheby1 cheby2 "
        "ellip ellipap ellipord findfreqs freqs freqs_zpk freqz freqz_sos "
        "freqz_zpk gammatone group_delay iircomb iirdesign iirfilter iirnotch "
        "iirpeak lp2bp lp2bp_zpk lp2bs lp2bs_zpk lp2hp lp2hp_zpk lp2lp "
        "lp2lp_zpk normalize sos2tf sos2zpk sosfreqz tf2sos tf2zpk zpk2sos "
        "zpk2tf",
    ),
    "scipy.signal.fir_filter_design": (
        "scipy.signal",
        "firls firwin firwin2 firwin_2d kaiser_atten kaiser_beta kaiserord "
        "minimum_phase remez",
    ),
    "scipy.signal.lti_conversion": (
        "scipy.signal",
        "abcd_normalize cont2discrete normalize ss2tf ss2zpk tf2ss tf2zpk "
        "zpk2ss zpk2tf",
    ),
    "scipy.signal.ltisys": (
        "scipy.signal",
        "StateSpace TransferFunction ZerosPolesGain abcd_normalize bode "
        "cont2discrete dbode dfreqresp dimpulse dlsim dlti dstep freqresp freqs "
        "freqs_zpk freqz freqz_zpk impulse lsim lti normalize place_poles ss2tf "
        "ss2zpk step tf2ss tf2zpk zpk2ss zpk2tf",
    ),
    "scipy.signal.signaltools": (
        "scipy.signal",
        "cheby1 choose_conv_method convolve convolve2d correlate correlate2d "
        "correlation_lags decimate deconvolve detrend dlti fftconvolve filtfilt "
        "firwin get_window hilbert hilbert2 invres invresz lfilter lfilter_zi "
        "lfiltic medfilt medfilt2d oaconvolve order_filter resample "
        "resample_poly residue residuez sosfilt sosfilt_zi sosfiltfilt "
        "unique_roots upfirdn vectorstrength wiener",
    ),
    "scipy.signal.spectral": (
        "scipy.signal",
        "check_COLA check_NOLA coherence csd get_window istft lombscargle "
        "periodogram spectrogram stft welch",
    ),
    "scipy.signal.spline": ("scipy.signal", "sepfir2d"),
    "scipy.signal.waveforms": (
        "scipy.signal",
        "chirp gausspulse sawtooth square sweep_poly unit_impulse",
    ),
    "scipy.signal.windows.windows": (
        "scipy.signal.windows",
        "barthann bartlett blackman blackmanharris bohman boxcar chebwin cosine "
        "dpss exponential flattop gaussian general_cosine general_gaussian "
        "general_hamming get_window hamming hann kaiser nuttall parzen taylor "
        "triang tukey",
    ),
    "scipy.sparse.base": (
        "scipy.sparse",
        "SparseEfficiencyWarning SparseWarning issparse isspmatrix spmatrix",
    ),
    "scipy.sparse.bsr": ("scipy.sparse", "bsr_matrix isspmatrix_bsr spmatrix"),
    "scipy.sparse.compressed": ("scipy.sparse", "SparseEfficiencyWarning"),
    "scipy.sparse.construct": (
        "scipy.sparse",
        "block_diag bmat bsr_matrix coo_matrix csc_matrix csr_matrix dia_matrix "
        "diags eye get_index_dtype hstack identity issparse kron kronsum rand "
        "random spdiags vstack",
    ),
    "scipy.sparse.coo": (
        "scipy.sparse",
        "SparseEfficiencyWarning coo_matrix isspmatrix_coo spmatrix",
    ),
    "scipy.sparse.csc": ("scipy.sparse", "csc_matrix isspmatrix_csc spmatrix"),
    "scipy.sparse.csr": ("scipy.sparse", "csr_matrix isspmatrix_csr spmatrix"),
    "scipy.sparse.dia": ("scipy.sparse", "dia_matrix isspmatrix_dia spmatrix"),
    "scipy.sparse.dok": ("scipy.sparse", "dok_matrix isspmatrix_dok spmatrix"),
    "scipy.sparse.extract": ("scipy.sparse", "coo_matrix find tril triu"),
    "scipy.sparse.lil": ("scipy.sparse", "isspmatrix_lil lil_array lil_matrix"),
    "scipy.sparse.linalg.dsolve": (
        "scipy.sparse.linalg",
        "MatrixRankWarning SuperLU factorized spilu splu spsolve "
        "spsolve_triangular use_solver",
    ),
    "scipy.sparse.linalg.dsolve.linsolve": (
        "scipy.sparse.linalg",
        "MatrixRankWarning factorized spilu splu spsolve spsolve_triangular use_solver",
    ),
    "scipy.sparse.linalg.eigen": (
        "scipy.sparse.linalg",
        "ArpackError ArpackNoConvergence eigs eigsh lobpcg svds",
    ),
    "scipy.sparse.linalg.eigen.arpack": (
        "scipy.sparse.linalg",
        "ArpackError ArpackNoConvergence eigs eigsh svds",
    ),
    "scipy.sparse.linalg.eigen.arpack.arpack": (
        "scipy.sparse.linalg",
        "ArpackError ArpackNoConvergence eigs eigsh svds",
    ),
    "scipy.sparse.linalg.eigen.lobpcg": ("scipy.sparse.linalg", "lobpcg"),
    "scipy.sparse.linalg.eigen.lobpcg.lobpcg": ("scipy.sparse.linalg", "lobpcg"),
    "scipy.sparse.linalg.interface": (
        "scipy.sparse.linalg",
        "LinearOperator aslinearoperator",
    ),
    "scipy.sparse.linalg.isolve": (
        "scipy.sparse.linalg",
        "bicg bicgstab cg cgs gcrotmk gmres lgmres lsmr lsqr minres qmr tfqmr",
    ),
    "scipy.sparse.linalg.isolve.iterative": (
        "scipy.sparse.linalg",
        "bicg bicgstab cg cgs gmres qmr",
    ),
    "scipy.sparse.linalg.isolve.lgmres": ("scipy.sparse.linalg", "lgmres"),
    "scipy.sparse.linalg.isolve.lsmr": ("scipy.sparse.linalg", "lsmr"),
    "scipy.sparse.linalg.isolve.lsqr": ("scipy.sparse.linalg", "lsqr"),
    "scipy.sparse.linalg.isolve.minres": ("scipy.sparse.linalg", "minres"),
    "scipy.sparse.linalg.isolve.tfqmr": ("scipy.sparse.linalg", "tfqmr"),
    "scipy.sparse.linalg.matfuncs": (
        "scipy.sparse.linalg",
        "LinearOperator expm inv spsolve",
    ),
    "scipy.spatial.ckdtree": ("scipy.spatial", "cKDTree"),
    "scipy.spatial.kdtree": (
        "scipy.spatial",
        "KDTree Rectangle cKDTree distance_matrix minkowski_distance "
        "minkowski_distance_p",
    ),
    "scipy.spatial.qhull": (
        "scipy.spatial",
        "ConvexHull Delaunay HalfspaceIntersection QhullError Voronoi tsearch",
    ),
    "scipy.spatial.transform.rotation": ("scipy.spatial.transform", "Rotation Slerp"),
    "scipy.special.basic": (
        "scipy.special",
        "ai_zeros assoc_laguerre bei_zeros beip_zeros ber_zeros bernoulli "
        "berp_zeros bi_zeros comb digamma diric erf_zeros euler factorial "
        "factorial2 factorialk fresnel_zeros fresnelc_zeros fresnels_zeros "
        "gamma h1vp h2vp hankel1 hankel2 iv ivp jn_zeros jnjnp_zeros jnp_zeros "
        "jnyn_zeros jv jvp kei_zeros keip_zeros kelvin_zeros ker_zeros "
        "kerp_zeros kv kvp lmbda lqmn lqn mathieu_a mathieu_b mathieu_even_coef "
        "mathieu_odd_coef obl_cv_seq pbdn_seq pbdv_seq pbvv_seq perm polygamma "
        "pro_cv_seq psi riccati_jn riccati_yn sinc y0_zeros y1_zeros y1p_zeros "
        "yn_zeros ynp_zeros yv yvp zeta",
    ),
    "scipy.special.orthogonal": (
        "scipy.special",
        "airy c_roots cg_roots chebyc chebys chebyt chebyu gegenbauer "
        "genlaguerre h_roots he_roots hermite hermitenorm j_roots jacobi "
        "js_roots l_roots la_roots laguerre legendre p_roots ps_roots "
        "roots_chebyc roots_chebys roots_chebyt roots_chebyu roots_gegenbauer "
        "roots_genlaguerre roots_hermite roots_hermitenorm roots_jacobi "
        "roots_laguerre roots_legendre roots_sh_chebyt roots_sh_chebyu "
        "roots_sh_jacobi roots_sh_legendre s_roots sh_chebyt sh_chebyu "
        "sh_jacobi sh_legendre t_roots ts_roots u_roots us_roots",
    ),
    "scipy.special.sf_error": (
        "scipy.special",
        "SpecialFunctionError SpecialFunctionWarning",
    ),
    "scipy.special.specfun": ("scipy.special", "lqmn"),
    "scipy.special.spfun_stats": ("scipy.special", "multigammaln"),
    "scipy.stats.kde": ("scipy.stats", "gaussian_kde"),
    "scipy.stats.morestats": (
        "scipy.stats",
        "anderson anderson_ksamp ansari bartlett bayes_mvs boxcox boxcox_llf "
        "boxcox_normmax boxcox_normplot chi2_contingency circmean circstd "
        "circvar distributions fligner kstat kstatvar levene median_test mood "
        "mvsdist ppcc_max ppcc_plot probplot shapiro wilcoxon yeojohnson "
        "yeojohnson_llf yeojohnson_normmax yeojohnson_normplot",
    ),
    "scipy.stats.mstats_basic": (
        "scipy.stats.mstats",
        "argstoarray brunnermunzel count_tied_groups describe f_oneway "
        "find_repeats friedmanchisquare kendalltau kendalltau_seasonal kruskal "
        "kruskalwallis ks_1samp ks_2samp ks_twosamp kstest kurtosis "
        "kurtosistest linregress mannwhitneyu meppf mode moment mquantiles "
        "msign normaltest obrientransform pearsonr plotting_positions "
        "pointbiserialr rankdata scoreatpercentile sem sen_seasonal_slopes "
        "siegelslopes skew skewtest spearmanr theilslopes tmax tmean tmin trim "
        "trima trimboth trimmed_mean trimmed_std trimmed_stde trimmed_var trimr "
        "trimtail tsem ttest_1samp ttest_ind ttest_onesamp ttest_rel tvar "
        "variation winsorize",
    ),
    "scipy.stats.mstats_extras": (
        "scipy.stats.mstats",
        "compare_medians_ms hdmedian hdquantiles hdquantiles_sd idealfourths "
        "median_cihs mjci mquantiles_cimj rsh trimmed_mean_ci",
    ),
    "scipy.stats.stats": (
        "scipy.stats",
        "alexandergovern brunnermunzel chisquare combine_pvalues cumfreq "
        "describe distributions energy_distance f_oneway fisher_exact "
        "friedmanchisquare gmean gstd gzscore hmean iqr jarque_bera kendalltau "
        "kruskal ks_1samp ks_2samp kstest kurtosis kurtosistest linregress "
        "median_abs_deviation mode moment multiscale_graphcorr normaltest "
        "obrientransform pearsonr percentileofscore pmean pointbiserialr "
        "power_divergence rankdata ranksums relfreq scoreatpercentile sem "
        "siegelslopes sigmaclip skew skewtest spearmanr theilslopes tiecorrect "
        "tmax tmean tmin trim1 trim_mean trimboth tsem tstd ttest_1samp "
        "ttest_ind ttest_ind_from_stats ttest_rel tvar wasserstein_distance "
        "weightedtau zmap zscore",
    ),
}
PATHS: dict[str, tuple[str, frozenset[str]]] = {
    private: (public, _names(names)) for private, (public, names) in _ROWS.items()
}
