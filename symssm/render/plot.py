"""Figures (matplotlib, the optional ``plot`` extra).

* :func:`plot_gradient`: gradient norm against distance on a log scale: the SSM's exact
  ``||L_d||_F``, its certified envelope ``K r^d``, the attention lower bound ``c``, the crossover.
* :func:`plot_heads`: best H-head approximation error against H (the paper's experiment,
  computed deterministically by the numeric path), with the head count marked and, from a verified
  eps-head-count certificate, the certified brackets as error bars.

Both draw on a given matplotlib ``ax`` or on a new :class:`matplotlib.figure.Figure` (never through
``pyplot``, so a notebook's backend and its open figures are left alone), write a file when ``path`` is
given, and return the Figure: in Jupyter ``plot_heads([res])`` shows it, ``plot_heads([res], ax=ax)`` draws
into your own axes.
"""

from fractions import Fraction
from math import sqrt

from ..errors import InputError

__all__ = ["plot_gradient", "plot_heads", "plot_model", "figure_format", "FORMATS"]


def _axes(ax, size=(6.4, 4.0)):
    """``(figure, axes)``: the given axes and its figure, or a new Figure (no pyplot: the backend is untouched)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'symssm[plot]'") from None
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size)
    return fig, fig.add_subplot()


#: Figure formats by file suffix, with the metadata that would make the bytes differ run to run removed.
FORMATS = {
    ".png": ("png", {"Software": None}),
    ".pdf": ("pdf", {"Creator": None, "Producer": None, "CreationDate": None}),
    ".svg": ("svg", {"Creator": None, "Date": None}),
}


def figure_format(path):
    """The format a figure path's suffix names (``.png``, ``.pdf`` or ``.svg``).

    Raises
    ------
    InputError
        For any other suffix.

    Examples
    --------
    >>> figure_format("fig.PDF")
    'pdf'
    """
    import os

    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FORMATS:
        raise InputError(f"cannot tell the figure format of {os.fspath(path)!r}: use a .png, .pdf or .svg file name")
    return FORMATS[suffix][0]


def _save(fig, path, inputs=()):
    import io

    from ..formats.files import atomic_write

    fmt = figure_format(path)
    metadata = next(meta for f, meta in FORMATS.values() if f == fmt)
    buf = io.BytesIO()
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "symssm"}):
        fig.savefig(buf, format=fmt, dpi=120, metadata=metadata)
    atomic_write(path, buf.getvalue(), inputs=inputs)


def plot_gradient(cert, path=None, *, max_distance=None, inputs=(), ax=None):
    """Plot a (verified) gradient-highway certificate; returns the Figure (written to ``path`` when given: PNG, PDF
    or SVG by the suffix; drawn on ``ax`` when given).

    Raises
    ------
    InputError
        If matplotlib is missing or the suffix names no supported format.
    """
    from ..exact.lags import lags
    from ..sources.system import ssm

    if path is not None:
        figure_format(path)
    d = cert.data if hasattr(cert, "data") else cert
    s = d["system"]
    system = ssm(s["A"], s["B"], s["C"], s["D"])
    r = Fraction(d["decay_rate"])
    K = sqrt(Fraction(d["decay_constant_squared"]))
    c = float(Fraction(d["attention_lower_bound"]))
    delta = d["crossover_distance"]
    top = max_distance or max(40, 2 * (delta or 20))
    top = min(top, d["n"] - 1, 2000)
    Ls = lags(system, top + 1)
    dist = list(range(1, top + 1))
    norms = [sqrt(sum(float(x) ** 2 for row in Ls[k] for x in row)) for k in dist]
    envelope = [K * float(r) ** k for k in dist]
    fig, ax = _axes(ax)
    tiny = 1e-300
    ax.semilogy(dist, [max(v, tiny) for v in norms], "o-", ms=3, label=r"SSM $\|L_d\|_F$ (exact)")
    ax.semilogy(dist, envelope, "--", label=rf"certified $K r^d$, $r = {float(r):.4g}$")
    ax.axhline(c, color="C2", label=f"attention lower bound c = {c:.4g}")
    if delta is not None and delta <= top:
        ax.axvline(delta, color="C3", ls=":", label=f"crossover distance {delta}")
    ax.set_xlabel("distance i - j")
    ax.set_ylabel(r"$\|\partial y_i / \partial x_j\|_F$")
    ax.set_title(f"Gradient highway: {s['name'] or 'SSM'}")
    low = min([v for v in norms if v > 0] + [c, envelope[-1]])
    ax.set_ylim(max(low / 10, 1e-30), max(envelope[0], c) * 10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    if path is not None:
        _save(fig, path, inputs)
    return fig


def plot_heads(results, path=None, *, inputs=(), certified=None, tolerance=None, ax=None):
    """Plot approximation error against H for numeric results; returns the Figure (written to ``path`` when
    given: PNG, PDF or SVG by the suffix; drawn on ``ax`` when given).

    ``results``: :class:`~symssm.numeric.headcount.NumericResult` objects (or anything with ``name``,
    ``numerical_head_count`` and ``approximation_error``), or one of them.  ``certified``: the data of a verified
    ``approximate-head-count`` (or ``trained-head-count``) certificate, or a list of them (None where a curve has
    none) aligned with ``results``; their brackets are drawn as error bars (the paper's figure with rigorous error
    bars), with the tolerance and, for one certificate, the certified eps-head count.  ``tolerance``: a horizontal
    line at it (taken from the certificates when there are some).

    Raises
    ------
    InputError
        If matplotlib is missing or the suffix names no supported format.

    Examples
    --------
    >>> from symssm.numeric.headcount import numeric_head_count
    >>> import numpy as np
    >>> res = numeric_head_count((np.diag([0.9, 0.5]), np.eye(2), np.eye(2)), 100, tolerance=1e-3)
    >>> fig = plot_heads(res, tolerance=1e-3)
    >>> fig.axes[0].get_xlabel()
    'number of heads H'
    """
    if path is not None:
        figure_format(path)
    if not isinstance(results, (list, tuple)):
        results = [results]
    fig, ax = _axes(ax)
    drew = False
    for i, res in enumerate(results):
        errs = [float(e) for e in res.approximation_error]
        if not errs:
            continue
        H = list(range(len(errs)))
        top = max(errs)
        floor = max(top * 1e-17, 1e-300) if top > 0 else 1e-300
        k = res.numerical_head_count
        ax.semilogy(H, [max(e, floor) for e in errs], "o-", color=f"C{i % 10}",
                    label=f"{res.name or 'SSM'} (numerical, k = {k})")
        if k is not None:
            ax.axvline(k, color=f"C{i % 10}", ls=":")
        drew = True
    title = "Approximation error vs. heads (numerical)"
    certs = certified if isinstance(certified, list) else [certified]
    drawn = [(i, c) for i, c in enumerate(certs) if c is not None and c.get("errors")]
    for j, (i, cert) in enumerate(drawn):
        Hs = [e["H"] for e in cert["errors"]]
        lo = [float(Fraction(e["lower"])) for e in cert["errors"]]
        up = [float(Fraction(e["upper"])) for e in cert["errors"]]
        floor = max(max(up) * 1e-17, 1e-300)
        mid = [max(u, floor) for u in up]
        ax.errorbar(Hs, mid, yerr=[[max(u, floor) - max(l_, floor) for l_, u in zip(lo, up)], [0] * len(up)],
                    fmt="s", color="k" if len(drawn) == 1 else f"C{i % 10}", capsize=4,
                    label="certified bracket [lower, upper]" if j == 0 else None)
        drew = True
    if drawn:
        tolerance = float(Fraction(drawn[0][1]["tolerance"]))
        ks = [c["head_count"] for _, c in drawn]
        title = "Approximation error vs. heads: certified brackets" + (
            f", k_eps = {ks[0]}" if len(ks) == 1 and ks[0] is not None else "")
    if tolerance is not None:
        ax.axhline(float(tolerance), color="k", ls="--", lw=0.8, label=f"tolerance {float(tolerance):g}")
        drew = True
    if not drew:
        ax.text(0.5, 0.5, "no error curve to draw", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("number of heads H")
    ax.set_ylabel("best H-head error (Frobenius, length-n operator)")
    ax.set_title(title)
    if drew:
        ax.legend(fontsize=8)
    fig.tight_layout()
    if path is not None:
        _save(fig, path, inputs)
    return fig


def _short_name(name):
    """A layer's name for a tick label: its last three components (``layers.3.mamba``)."""
    return ".".join(name.replace("/", ".").split(".")[-3:])[-32:]


def _flat_layers(report):
    for layer in report["layers"]:
        if layer["kind"] == "parallel":
            yield layer, layer.get("parts", [])
        else:
            yield layer, []


def _model_curves(report, ax, certified):
    """The layers' best H-head error curves (selective layers' on the report's input) with the certified brackets."""
    from types import SimpleNamespace

    curves, certs = [], []
    by_name = dict(zip((x["name"] for x in report["layers"]), certified or [None] * len(report["layers"])))
    for layer, parts in _flat_layers(report):
        for item in (parts or [layer]):
            if "approximation_error" not in item:
                continue
            count = item.get("numerical_head_count", item.get("numerical_interaction_rank"))
            label = item["name"] + (f" (interaction rank, {item['tokens']} tokens)" if "tokens" in item else "")
            curves.append(SimpleNamespace(name=label, numerical_head_count=count,
                                          approximation_error=item["approximation_error"],
                                          approximation_error_cut=item.get("approximation_error_cut", False)))
            certs.append(by_name.get(item["name"]))
    if curves:
        plot_heads(curves[:24], ax=ax, certified=certs[:24] if certified is not None else None,
                   tolerance=report.get("tolerance"))
    else:
        ax.set_axis_off()


def plot_model(report, path=None, *, inputs=(), certified=None):
    """The highway map of a model (:func:`symssm.numeric.models.analyse_model`'s report) in one figure; returns it.

    Middle: every analysed layer's best H-head error curve with the tolerance (and, given ``certified``, one
    verified certificate's data or None per report layer, the certified brackets).  Top: per layer, in order, the eps-head count (time-invariant layers, at the report's tolerance), the numerical
    interaction rank (selective layers, on the report's input), the effective state (Hankel singular values above
    the tolerance), the distance-independent attention paths (heads) and the MLP / MoE layers (no path between
    tokens) as marks.  Bottom: every decaying layer's gradient envelope ``K r^d`` against the distance d (log scale;
    dashed where the rate is numeric), the attention highway's bound, and each crossover distance.

    Parameters
    ----------
    report : dict
        The model's report.
    path : str, optional
        Where to write the figure (``.png``, ``.pdf``, ``.svg``).
    inputs : tuple
        Files the figure must not overwrite.
    certified : list, optional
        Per report layer, a verified certificate's data or None.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    InputError
        If matplotlib is missing or the suffix of ``path`` is not a figure format.

    Examples
    --------
    >>> report = {"n": 64, "tolerance": 1e-6, "layers": [{"name": "a", "kind": "attention", "highway": {
    ...     "distance_independent_paths": 2, "attention_bound": 0.5}}], "highway": {"attention_bound": 0.5}}
    >>> plot_model(report).axes[0].get_title()
    'layers: head counts, ranks and attention paths'
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'symssm[plot]'") from None
    fig = Figure(figsize=(8.0, 9.6))
    top, middle, bottom = fig.add_subplot(3, 1, 1), fig.add_subplot(3, 1, 2), fig.add_subplot(3, 1, 3)
    _model_curves(report, middle, certified)
    names, counts, states, paths, kinds = [], [], [], [], []
    curves = []
    for layer, parts in _flat_layers(report):
        hw = layer.get("highway") or {}
        if layer["kind"] in ("embedding", "norm", "output", "buffer"):
            continue
        names.append(layer["name"])
        kinds.append(layer["kind"])
        counts.append(hw.get("eps_head_count"))
        states.append(hw.get("effective_state"))
        paths.append(hw.get("distance_independent_paths"))
        if hw.get("decay_rate") is not None and hw.get("decay_rate") < 1.0:
            K = hw.get("decay_constant")
            if K is None and hw.get("distance_profile"):
                r = hw["decay_rate"]
                K = max((p / r ** d for d, p in enumerate(hw["distance_profile"]) if p > 0), default=0.0) if r > 0 \
                    else 0.0
            curves.append((layer["name"], K, hw.get("decay_rate_every_input", hw["decay_rate"]),
                           hw.get("crossover_distance"), hw.get("status", "numeric")))
    x = list(range(len(names)))
    width = 0.28
    top.bar([i - width for i in x], [c or 0 for c in counts], width, label="eps-head count / interaction rank")
    top.bar(x, [s or 0 for s in states], width, label="effective state (Hankel)")
    top.bar([i + width for i in x], [p or 0 for p in paths], width, label="attention paths (heads)")
    top.set_xticks(x)
    top.set_xticklabels([_short_name(n) for n in names], rotation=60, ha="right", fontsize=6)
    top.set_title("layers: head counts, ranks and attention paths")
    top.legend(fontsize=7)
    n = report.get("n", 1024)
    bound = (report.get("highway") or {}).get("attention_bound")
    reach = max([d for *_, d, _ in curves if d] + [min(n, 256)])
    ds = list(range(1, reach + 1))
    for name, K, r, cross, status in curves[:24]:
        if not K:
            continue
        ys = [max(K * r ** d, 1e-300) for d in ds]
        bottom.plot(ds, ys, "-" if "certified" in str(status) else "--", linewidth=1, label=_short_name(name))
        if cross:
            bottom.plot([cross], [K * r ** cross], "o", markersize=3, color="black")
    if bound:
        bottom.axhline(bound, color="black", linewidth=1.2, label=f"attention bound ({bound:.3g})")
    bottom.set_yscale("log")
    bottom.set_xlabel("distance d = i - j")
    bottom.set_ylabel("gradient bound")
    bottom.set_title("gradient decay K r^d (dashed: numeric) and the attention highway")
    if curves or bound:
        bottom.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    if path is not None:
        _save(fig, path, inputs=inputs)
    return fig
