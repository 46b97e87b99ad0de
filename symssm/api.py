"""The Python facade: certificates as objects, and the public functions that make and check them.

:class:`Certificate` wraps certificate data with what a user does with it: save it, check it
with the independent checker (the verdict is kept, so a certificate is verified once), and
typeset it, which it does only once the checker has verified it.

Examples
--------
>>> from symssm import ssm
>>> cert = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 8)
>>> cert["head_count"], cert.check().verified
(2, True)
>>> "exactly $k = 2$ attention heads are necessary" in cert.to_latex()
True
"""

import hashlib
import os

from .certificate import kinds
from .certificate.envelope import check_envelope, verify
from .formats.files import atomic_write
from .formats.jsonio import dumps_canonical, load_strict, loads_strict

__all__ = ["Certificate", "certify", "certify_checkpoint", "gradient_certificate", "check", "load_certificate", "to_latex",
           "verified"]


class Certificate:
    """A certificate document (a read-only mapping view of its JSON data).

    Parameters
    ----------
    data : dict
        Certificate JSON data.

    Raises
    ------
    InputError
        If ``data`` is not a symssm certificate of a known kind.
    """

    def __init__(self, data, *, what="certificate"):
        self._data = check_envelope(data, what=what)
        self._verdicts = {}

    @property
    def data(self):
        """The JSON data (do not modify: the certificate would no longer verify)."""
        return self._data

    @property
    def kind(self):
        """The certificate's kind: one of :data:`symssm.certificate.kinds.NAMES` (``"head-count"``, ...)."""
        return self._data["kind"]

    def __getitem__(self, key):
        return self._data[key]

    def __contains__(self, key):
        return key in self._data

    def to_json(self):
        """Canonical JSON text (sorted keys, two-space indent, final newline)."""
        return dumps_canonical(self._data, indent=2)

    def save(self, path, *, inputs=()):
        """Write the JSON atomically (temporary file, then rename); never over a file in ``inputs``.

        Raises
        ------
        OutputError
            If ``path`` cannot be written (see :func:`symssm.formats.files.atomic_write`).
        """
        atomic_write(path, self.to_json(), inputs=inputs)

    def check(self, *, spec=None, max_seconds=None):
        """Re-verify with the independent checker; returns its result object.

        The verdict without ``spec`` is kept for this exact data: asking again (or rendering) does not
        re-check unless the data changed.
        """
        if spec is not None:
            return verify(self._data, spec=spec, max_seconds=max_seconds)
        return self._check(self.to_json(), max_seconds)

    def _check(self, fingerprint, max_seconds=None):
        """The verdict on the data whose canonical JSON is ``fingerprint`` (kept: the data may have been changed
        since its last check, and is re-checked then)."""
        cached = self._verdicts.get(fingerprint)
        if cached is not None:
            return cached
        result = verify(self._data, max_seconds=max_seconds)
        if result.code != 2:
            self._verdicts = {fingerprint: result}
        return result

    def at(self, **values):
        """What a verified certificate with parameters (a family, or a layer for every input) proves at one point.

        Parameters
        ----------
        **values
            Every parameter, as an int, a :class:`fractions.Fraction` or a string of the strict grammar (``"p/q"``,
            ``"0.25"``); read once by :func:`~symssm.formats.rationals.to_fraction` (a binary float is refused).

        Returns
        -------
        dict
            ``head_count`` (an int, or None where the certificate proves nothing: the family is
            undefined there or the point lies on an uncovered factor), ``holds_for``, ``case`` (the
            substitutions that lead to the point's case), ``reason``; for a layer, ``interaction_rank``
            in place of ``head_count`` and ``holds_for``.

        Raises
        ------
        InputError
            If this is not a parametric certificate, a value is not rational (a binary float:
            :class:`~symssm.errors.FloatInExactPathError`), or the parameters differ.
        CertificateError
            If the certificate does not verify.

        Examples
        --------
        >>> from symssm import certify
        >>> from symssm.sources.parametric import parametric_family
        >>> cert = certify(parametric_family("rotation-symbolic"), 4)
        >>> cert.at(t=0)["head_count"], cert.at(t="1/2")["head_count"]
        (1, 2)
        """
        from .checker.core import check_data
        from .errors import CertificateError, InputError
        from .formats.rationals import to_fraction

        if kinds.of(self._data).at is None:
            raise InputError("at() applies to certificates with parameters (families, and layers for every input)")
        point = {name: to_fraction(value, what=name) for name, value in values.items()}  # read once, exactly
        result = check_data(self._data, at=point)
        if result.code == 2 and result.message.startswith("--at"):
            raise InputError(result.message)
        if not result.verified:
            raise CertificateError(f"the certificate does not verify: {result.message}")
        return result.at

    def to_latex(self, **options):
        """LaTeX proving the claim, once the checker has verified it (see :func:`symssm.render.latex.render`).

        Raises
        ------
        CertificateError
            If the certificate does not verify.
        """
        from .errors import CertificateError
        from .render.latex import _render_checked

        text = self.to_json()  # once: the verdict's key and the SHA-256 the fragment's markers carry
        result = self._check(text)
        if not result.verified:
            raise CertificateError(f"the certificate does not verify, refusing to render it: {result.message}")
        # rendered from the file's bytes (keys sorted), so the fragment reads as ``symssm latex CERT`` writes it
        digest = hashlib.sha256(text.encode("ascii")).hexdigest()
        return _render_checked(loads_strict(text, what="certificate"), digest=digest, **options)

    def _repr_markdown_(self):
        from .render.latex import render_markdown

        try:
            return render_markdown(self._data, self.check())
        except Exception as exc:  # Jupyter shows this instead of an unverified claim
            return f"**symssm: this certificate does not verify** ({type(exc).__name__})"

    def __repr__(self):
        d = self._data
        row = kinds.of(d)
        name = d["system"]["name"] if isinstance(d.get("system"), dict) else ""
        label = repr(name[:40]) if isinstance(name, str) and name else row.subject
        if row.claim is None:
            return f"<Certificate {d['kind']} for {label}>"
        claim = row.claim.format_map({key: d.get(key) for key in ("n", row.count)})
        if row.family:
            return (f"<Certificate {d['kind']} {claim} generically for {label}"
                    f"{'' if d.get('complete') else ' (incomplete)'}>")
        return f"<Certificate {d['kind']} {claim} for {label}>"

    def __eq__(self, other):
        return isinstance(other, Certificate) and other._data == self._data

    __hash__ = None  # type: ignore[assignment]  # mutable-looking data: unhashable


def certify(system, n=None, *, method="auto", max_seconds=None, tolerance=None, verify=True):
    """Certify the head count ``k(n)`` of a system, or the interaction rank of a layer with its input.

    With ``tolerance`` (a number in (0, 1), e.g. ``"1e-3"``): the eps-head count instead, the least H
    whose best H-head model has relative error at most the tolerance on length ``n``, with certified
    brackets on every error up to it (kind ``approximate-head-count``, docs/numeric.md).

    Parameters
    ----------
    system : SSM, ComplexSSM, ParametricSSM, Layer, ParametricLayer or TrainedLayer
        A time-invariant SSM (head count; a :class:`~symssm.sources.parametric.ParametricSSM`
        gives a certificate for every parameter value, ``docs/parametric.md``), or a layer of the unified framework
        (:mod:`symssm.sources.layers`: interaction rank on its given input; a
        :class:`~symssm.sources.parametric_layers.ParametricLayer` gives it for every input,
        ``docs/framework.md``; ``n`` and ``method`` do not apply), or a trained S4D / S5 / LRU layer
        (:func:`symssm.sources.trained.trained_layer`; needs ``tolerance``; ``n`` defaults to 1024).
    n : int, optional
        Sequence length; default the truncation length ``T`` (where ``k`` has
        reached its final value).
    method : {"auto", "exact", "modular"}
    max_seconds : float, optional
        Budget; :class:`~symssm.errors.BudgetExceeded` past it.
    tolerance : str, int or Fraction, optional
        Certify the eps-head count at this relative error (see above).
    verify : bool
        Hand the certificate out only once the independent checker has verified it (default; the verdict
        is kept on it). False skips the checker (``symssm certify --no-verify``); such a certificate is
        still verified before it is rendered.

    Returns
    -------
    Certificate
        Verified by the independent checker (re-check with :func:`symssm.check` or ``symssm check``).

    Raises
    ------
    InputError
        If ``n``, the system, the method or the tolerance is not valid.
    LimitError
        If the certificate would be beyond the generator's or the checker's limits.
    BudgetExceeded
        If ``max_seconds`` runs out.
    """
    row = kinds.for_system(system, tolerance=tolerance)
    if tolerance is not None:  # read once, here: the builders and the exact modules get the exact value
        from .formats.rationals import parse_tolerance

        tolerance = parse_tolerance(tolerance)
    return _built(row, system, n=row.length_of(system, n), method=method, max_seconds=max_seconds,
                  tolerance=tolerance, verify=verify)


def _built(row, system, *, verify=True, **options):
    """The certificate of kind ``row`` for ``system``: its builder called with the options it takes."""
    data = row.load("builder")(system, **{key: options[key] for key in row.takes})
    return _handed_out(data, verify)


def verified(data):
    """Certificate data as a :class:`Certificate`, handed out only once the independent checker has verified it.

    Every certificate the generator makes passes here (:func:`certify`, :func:`gradient_certificate`, the
    catalogue): the checker runs once, and its verdict is kept on the :class:`Certificate`, so asking
    again (:meth:`Certificate.check`, :func:`check`, rendering) does not run it again.

    Parameters
    ----------
    data : dict
        Certificate data from a builder (:mod:`symssm.certificate`).

    Returns
    -------
    Certificate
        Verified.

    Raises
    ------
    LimitError
        If the checker cannot decide it (the certificate is beyond the checker's limits).
    CertificateError
        If the checker rejects it (a generator bug: never written, never rendered).

    Examples
    --------
    >>> from symssm.certificate.head_count import certify as head_count_data
    >>> from symssm import ssm
    >>> verified(head_count_data(ssm([[1]], [[1]], [[1]]), 4)).check().verified
    True
    """
    return _handed_out(data, True)


def _handed_out(data, verify):
    cert = Certificate(data)
    if not verify:
        return cert
    # the checker's work limits are charged before the work and alike with or without python-flint, so a
    # certificate it decides here is decided by a fresh `symssm check` too (no wall-clock budget here: a loaded
    # machine would then refuse honest certificates at random)
    verdict = cert.check()
    if verdict.code == 2:  # the generator never hands out what the checker would refuse
        from .errors import LimitError

        raise LimitError(f"the certificate is beyond the checker's limits: {verdict.message}")
    if not verdict.verified:  # pragma: no cover - a generator bug
        from .errors import CertificateError

        raise CertificateError(f"internal error: the checker rejected the new certificate: {verdict.message}")
    return cert


def certify_checkpoint(path, n, tolerance, *, layers=None, conventions=None):
    """Certify the eps-head count of every S4D, S4 (SSMKernelDiag), S5 and LRU layer of a checkpoint.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint (``.npz``, ``.safetensors`` or a PyTorch state dict).
    n : int
        The sequence length.
    tolerance : str, Fraction or float
        The relative error, in (0, 1); read once (:func:`~symssm.formats.rationals.parse_tolerance`).
    layers : list of CheckpointLayer, optional
        The layers :func:`~symssm.sources.checkpoints.read_layers` returned for it, when already read.
    conventions : Conventions, optional
        What the checkpoint does not record (:class:`~symssm.sources.checkpoints.Conventions`).

    Returns
    -------
    list of (str, Certificate or None, str or None)
        Per recognised layer, in the checkpoint's order: its name, its verified certificate (kind
        ``trained-head-count``), or None and the reason it is not certified (a Mamba layer, a limit).

    Raises
    ------
    InputError
        If the file cannot be read or the tolerance is invalid.
    """
    from .errors import SymssmError
    from .formats.rationals import parse_tolerance
    from .sources.checkpoints import read_layers
    from .sources.trained import trained_layer

    tolerance = parse_tolerance(tolerance)
    out = []
    for layer in read_layers(path) if layers is None else layers:
        try:  # certify() hands out only a certificate the checker has verified
            out.append((layer.name, certify(trained_layer(layer, path, conventions), n, tolerance=tolerance), None))
        except SymssmError as exc:
            out.append((layer.name, None, str(exc)))
    return out


def gradient_certificate(system, n=1000, *, max_seconds=None):
    """Certify the gradient highway trade-off for a stable SSM on sequences of length ``n``.

    Parameters
    ----------
    system : SSM
        A stable time-invariant system (spectral radius below 1).
    n : int
        The sequence length, in ``[2, 10^12]``.
    max_seconds : float, optional
        Budget; :class:`~symssm.errors.BudgetExceeded` past it.

    Returns
    -------
    Certificate
        Kind ``"gradient-highway"``, verified by the independent checker.

    Raises
    ------
    InputError
        If ``system`` is not an SSM or ``n`` is not an integer in ``[2, 10^12]``.
    NotStableError
        If A's spectral radius is >= 1 (then no decay certificate exists; the message says why).

    Examples
    --------
    >>> from symssm import ssm
    >>> cert = gradient_certificate(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]), 1000)
    >>> cert["crossover_distance"], cert.check().verified
    (6, True)
    """
    return _built(kinds.for_system(system, via="gradient"), system, n=n, max_seconds=max_seconds)


def load_certificate(path):
    """Read a certificate file into a :class:`Certificate` (call ``.check()`` to verify it).

    Parameters
    ----------
    path : str or os.PathLike
        The certificate's JSON file.

    Returns
    -------
    Certificate
        Not yet verified: its first :meth:`~Certificate.check` runs the checker.

    Raises
    ------
    InputError
        If the file cannot be read or is not a symssm certificate.
    """
    return Certificate(load_strict(path, what=f"certificate {path}"), what=f"certificate {path}")


def check(certificate, *, spec=None, max_seconds=None):
    """Verify a certificate with the independent checker: a :class:`Certificate`, its JSON data, or a file path.

    A :class:`Certificate` asked without ``spec`` answers with the verdict it keeps (:meth:`Certificate.check`),
    so a certificate :func:`certify` handed out is not checked again.

    Parameters
    ----------
    certificate : Certificate, dict, str or os.PathLike
        The certificate.
    spec : str, os.PathLike or dict, optional
        A spec file (or parsed spec JSON) the certificate must be about.
    max_seconds : float, optional
        The checker's budget: past it the verdict is undecided (code 2).

    Returns
    -------
    CheckResult
        ``.verified``, ``.code`` (0 verified, 1 rejected, 2 unreadable or undecided) and ``.message``.

    Examples
    --------
    >>> from symssm import ssm
    >>> check(certify(ssm([[1]], [[1]], [[1]]))).verified
    True
    >>> check({"format": "symssm-certificate"}).code
    1
    """
    from .checker import check_data, check_file

    if isinstance(certificate, (str, os.PathLike)):
        return check_file(certificate, spec_path=spec, max_seconds=max_seconds)
    if isinstance(certificate, Certificate) and spec is None:
        return certificate.check(max_seconds=max_seconds)  # its kept verdict, when it has one
    data = certificate.data if isinstance(certificate, Certificate) else certificate
    if isinstance(spec, (str, os.PathLike)):
        from .checker.kernel import CheckResult, Unreadable, read_file

        try:
            spec = read_file(spec, "spec")
        except Unreadable as exc:
            return CheckResult(2, str(exc))
    return check_data(data, spec=spec, max_seconds=max_seconds)


def to_latex(certificate, **options):
    """LaTeX for a certificate (object, data or file path), only after the checker has verified it.

    Parameters
    ----------
    certificate : Certificate, dict, str or os.PathLike
        The certificate; a file's name is recorded in the fragment's first comment.
    **options
        ``standalone``, ``macros``, ``prefix``, ``label``, ``environment``, ``theorem_name``, ``source``
        (:func:`symssm.render.latex.render`).

    Returns
    -------
    str
        The fragment (or document, or macro definitions).

    Raises
    ------
    InputError
        If it is not a certificate, or an option is unknown or outside its grammar.
    CertificateError
        If it does not verify.
    """
    if isinstance(certificate, (str, os.PathLike)):
        options.setdefault("source", os.fspath(certificate))
        certificate = load_certificate(certificate)
    if not isinstance(certificate, Certificate):
        certificate = Certificate(getattr(certificate, "data", certificate))
    return certificate.to_latex(**options)
