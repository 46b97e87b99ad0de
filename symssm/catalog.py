"""The certified catalogue: every family at a few small sizes, regenerated deterministically.

``symssm catalog --out DIR`` writes, for each case, the head-count certificate
(``NAME.json``) and its LaTeX (``NAME.tex``), plus for stable members the gradient-highway
certificate (``NAME.gradient.json``, ``NAME.gradient.tex``), and ``README.md``: a table of every
case and observations drawn from it (stated as observations, never as theorems).
"""

import os

from .api import certify, gradient_certificate
from .errors import NotStableError
from .formats.files import atomic_write
from .formats.limits import MAX_CASES
from .sources.families import FAMILIES
from .sources.parametric import parametric_family

__all__ = ["CASES", "FAMILY_CASES", "N_LENGTH", "build_catalog", "catalog_files"]

#: Sizes (N, p, m) certified for every family.
SIZES = ((2, 1, 1), (4, 2, 1), (6, 2, 2), (8, 3, 2))
#: Sequence length of the catalogue's certificates.
N_LENGTH = 1024
CASES = tuple((family, N, p, m) for family in FAMILIES for (N, p, m) in SIZES)
#: Families with parameters in the catalogue: (family, N, p, m); each certificate covers every parameter value.
FAMILY_CASES = (("rotation-symbolic", 2, 2, 1), ("jordan-symbolic", 2, 2, 1), ("diagonal-symbolic", 3, 3, 1),
                ("companion-symbolic", 3, 3, 1), ("hippo-legs-step", 3, 3, 1), ("hippo-legt-step", 3, 3, 1),
                ("s4d-real-step", 3, 3, 1), ("generic-symbolic", 2, 2, 2))


def _system(family, N, p, m):
    return FAMILIES[family](N, p, m)


def catalog_files(records):
    """The file names the catalogue consists of, for the given case records (README.md last)."""
    names = []
    for r in records:
        names += [f"{r['name']}.json", f"{r['name']}.tex"]
        if r.get("gradient") is not None:
            names += [f"{r['name']}.gradient.json", f"{r['name']}.gradient.tex"]
    return names + ["README.md"]


def _write_verified(out, stem, cert):
    """Write a certificate and its LaTeX, after the independent checker has verified it."""
    cert.save(os.path.join(out, f"{stem}.json"))
    atomic_write(os.path.join(out, f"{stem}.tex"), cert.to_latex(source=f"{stem}.json"))


def build_catalog(out, *, progress=None):
    """Write the catalogue into folder ``out``; returns the list of case records.

    Raises
    ------
    OutputError
        If ``out`` exists and is not a folder.
    CertificateError
        If a certificate does not verify (a generator bug: nothing unverified is written).
    """
    from .errors import OutputError

    if os.path.exists(out) and not os.path.isdir(out):
        raise OutputError(f"cannot write the catalogue into {out}: it is not a folder")
    os.makedirs(out, exist_ok=True)
    records = []
    for family, N, p, m in CASES:
        system = _system(family, N, p, m)
        name = system.name
        cert = certify(system, N_LENGTH)
        _write_verified(out, name, cert)
        rec = {"family": family, "name": name, "N": N, "p": p, "m": m, "k": cert["head_count"],
               "profile": cert["profile"]["values"], "method": cert["lower_bound"]["method"], "gradient": None}
        try:
            g = gradient_certificate(system, N_LENGTH)
        except NotStableError:
            pass
        else:
            _write_verified(out, f"{name}.gradient", g)
            rec["gradient"] = {"r": g["decay_rate"], "rho": g["spectral_radius_estimate"],
                               "crossover": g["crossover_distance"]}
        records.append(rec)
        if progress is not None:
            progress(name)
    for family, N, p, m in FAMILY_CASES:
        system = parametric_family(family, N=N, **({"p": p, "m": m} if family == "generic-symbolic" else {}))
        name = f"{family}-N{N}-p{p}-m{m}"
        cert = certify(system, N_LENGTH)
        _write_verified(out, name, cert)
        root = cert["bodies"][0]
        records.append({"family": family, "name": name, "N": N, "p": p, "m": m, "k": cert["head_count"],
                        "parameters": root["parameters"], "bodies": cert["bodies"], "complete": cert["complete"],
                        "parametric": True, "gradient": None})
        if progress is not None:
            progress(name)
    atomic_write(os.path.join(out, "README.md"), _readme(records))
    return records


#: Candidate formulas the observations test against each family's cases (none is claimed in general).
_FORMULAS = (
    ("min(N, pm)", lambda N, p, m: min(N, p * m)),
    ("p + m - 1", lambda N, p, m: p + m - 1),
    ("p", lambda N, p, m: p),
    ("m", lambda N, p, m: m),
    ("min(pm, 2)", lambda N, p, m: min(p * m, 2)),
)


def _profile_text(values):
    return ", ".join(map(str, values))


def _family_section(records):
    lines = ["", "## Families with parameters", "",
             "Each certificate below is a theorem for a whole family ([docs/parametric.md](../docs/parametric.md)): "
             "the head count at every parameter value (real or complex) where the family is defined, or the factors "
             "on which it proves nothing. `symssm check FILE --at NAME=VALUE,...` answers for one point.", "",
             "| case | parameters | generic k | cases | complete | exceptions (factor: k there) | certificate | LaTeX |",
             "|---|---|---|---|---|---|---|---|"]
    for r in records:
        bodies = r["bodies"]
        notes = []
        for f in bodies[0]["factors"]["list"]:
            if f["status"] == "case":
                notes.append(f"{f['polynomial']} = 0: {bodies[f['case']]['head_count']}")
            elif f["status"] == "outside-domain":
                notes.append(f"{f['polynomial']} = 0: undefined")
            elif f["status"] == "no-zero":
                notes.append(f"{f['polynomial']} = 0: no rational point")
            else:
                notes.append(f"{f['polynomial']} = 0: not covered")
        params = ", ".join(r["parameters"])
        lines.append(f"| {r['name']} | {params} | {r['k']} | {len(bodies)} | {'yes' if r['complete'] else 'no'} | "
                     f"{'; '.join(notes) or 'none'} | [{r['name']}.json]({r['name']}.json) | "
                     f"[{r['name']}.tex]({r['name']}.tex) |")
    return lines


def _readme(records):
    families = [r for r in records if r.get("parametric")]
    records = [r for r in records if not r.get("parametric")]
    lines = [
        "# The certified catalogue",
        "",
        "Generated by `symssm catalog --out certificates` (do not edit by hand: CI regenerates it and fails",
        "on any byte difference). Every JSON file here is a certificate that `symssm check FILE` re-verifies",
        "independently; the `.tex` files are their LaTeX renderings (`symssm latex`). Family conventions:",
        "[docs/families.md](../docs/families.md). All head counts are for sequence length "
        f"n = {N_LENGTH}; the profile lists k(1), k(2), ... up to where k becomes constant.",
        "",
        "| case | family | N | p | m | k | profile k(1..) | certificate | LaTeX | gradient highway |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        g = r["gradient"]
        if g is None:
            gtext = "not stable (no decay certificate)"
        else:
            cross = f"crossover {g['crossover']}" if g["crossover"] is not None else "no crossover"
            gtext = (f"[{r['name']}.gradient.json]({r['name']}.gradient.json): r = {g['r']} "
                     f"(rho ~ {g['rho']}), {cross}")
        lines.append(f"| {r['name']} | {r['family']} | {r['N']} | {r['p']} | {r['m']} | {r['k']} | "
                     f"{_profile_text(r['profile'])} | [{r['name']}.json]({r['name']}.json) | "
                     f"[{r['name']}.tex]({r['name']}.tex) | {gtext} |")
    lines += ["", "## Observations", "",
              "Patterns seen in the cases above. They are observations about these certified cases, not",
              "theorems about the families; each names the cases behind it.", ""]
    generic = [r for r in records if r["k"] == min(r["N"], r["p"] * r["m"])]
    below = [r for r in records if r["k"] < min(r["N"], r["p"] * r["m"])]
    lines.append(f"- **Generic value.** In {len(generic)} of {len(records)} cases the head count equals its "
                 f"upper bound min(N, pm). By family: " + "; ".join(
                     f"{fam} {sum(1 for r in generic if r['family'] == fam)}/{sum(1 for r in records if r['family'] == fam)}"
                     for fam in FAMILIES) + ".")
    if below:
        by_family = {}
        for r in below:
            by_family.setdefault(r["family"], []).append(r)
        for fam, rs in by_family.items():
            cases = ", ".join(f"{r['name']} (k = {r['k']} < {min(r['N'], r['p'] * r['m'])})" for r in rs)
            lines.append(f"- **{fam} stays below the generic value** in: {cases}.")
    delayed = [r for r in records if r["profile"] and r["profile"][0] == 0 and r["k"] > 0]
    if delayed:
        lines.append("- **Delayed heads.** The profile starts at k(1) = 0 (the first lags vanish) in: "
                     + ", ".join(f"{r['name']} (first head at n = {r['profile'].index(next(v for v in r['profile'] if v)) + 1})"
                                 for r in delayed) + ".")
    flat = [r for r in records if any(b == a for a, b in zip(r["profile"], r["profile"][1:]))
            and r["profile"][-1] > r["profile"][0]]
    flat = [r for r in flat if any(0 < r["profile"][i] == r["profile"][i + 1] < r["profile"][-1]
                                   for i in range(len(r["profile"]) - 1))]
    if flat:
        lines.append("- **Flat, then rising again.** k(n) stays constant for a while and then increases in: "
                     + ", ".join(f"{r['name']} ({_profile_text(r['profile'])})" for r in flat)
                     + ". A rule that stops at the first dependent lag would be wrong here.")
    for fam in FAMILIES:
        rs = [r for r in records if r["family"] == fam]
        cases = ", ".join(f"({r['N']}, {r['p']}, {r['m']}) -> {r['k']}" for r in rs)
        matches = [text for text, rule in _FORMULAS if all(r["k"] == rule(r["N"], r["p"], r["m"]) for r in rs)]
        if matches:
            lines.append(f"- **{fam}**: k = {' = '.join(matches)} in all {len(rs)} cases, (N, p, m) -> k: {cases}.")
        else:
            lines.append(f"- **{fam}**: no simple formula among those tried fits all cases: {cases}.")
    lines.append("- **Read-out.** Every family's C is a fixed choice (docs/families.md): the last p state "
                 "coordinates for shift, rotation, companion and jordan, Vandermonde rows for diagonal, the first p "
                 "coordinates for hippo-legs, hippo-legt and s4d-real. HiPPO-LegS and S4D-Real have a lower-triangular "
                 "(or diagonal) A, so their first p coordinates form a closed p-state system and k <= p for every N: "
                 "the patterns above describe these read-outs, not the models under every C.")
    stable = [r for r in records if r["gradient"] is not None]
    lines.append(f"- **Gradient highway.** {len(stable)} of {len(records)} cases are stable and carry a decay "
                 "certificate; the others (rotations: spectral radius 1; companion and random members with an "
                 "eigenvalue of modulus >= 1) are refused with a reason. Crossover distances: "
                 + ", ".join(f"{r['name']} {r['gradient']['crossover']}" for r in stable) + ".")
    if families:
        lines += _family_section(families)
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- the framework table

#: Architectures of the framework table: (label, structural bound on r, layer, spec for every input or None).
def _framework_layers(seed, n, m):
    """The framework's layers on one seeded input, each with the spec of the same layer for every input.

    The spec for every input is the same layer with its input-dependent quantities as parameters
    (linear attention's tokens, the Mamba-2 head's gates, the selective SSM's steps): at the seeded
    values of those parameters it is exactly the layer of the row. None for layers whose blocks do
    not depend on the input, and for softmax attention (not rational in the tokens).
    """
    import random

    from .formats.rationals import format_rational
    from .render.framework import FRAMEWORK_ROWS
    from .sources.layers import layer_from_data, layer_json, mamba2_layer, selective_bilinear, selective_from_ssm
    from .sources.parametric import _bilinear_family
    from .sources import layer_kinds
    from .sources.system import ssm

    rng = random.Random(seed)
    small = lambda: rng.randint(-3, 3)
    mat = lambda r, c: [[small() for _ in range(c)] for _ in range(r)]
    N = 4
    steps = [f"1/{rng.randint(2, 9)}" for _ in range(n)]
    tokens = mat(n, m)
    heads = {H: [{"Q": mat(2, m), "K": mat(2, m), "V": mat(m, m)} for _ in range(H)] for H in (2,)}
    attention = lambda kind, H: layer_from_data({"kind": kind, "name": f"{kind}-H{H}", "X": tokens, "heads": heads[H]})
    continuous = [[-(i + 1) if i == j else (small() if j < i else 0) for j in range(N)] for i in range(N)]
    feedforward = layer_from_data({"kind": layer_kinds.OPERATOR.name, "name": "feedforward", "n": n, "p": m, "m": m,
                                   "blocks": [{"i": i, "j": i, "W": (W := mat(m, m)) if i == 1 else W}
                                              for i in range(1, n + 1)]})
    conv = layer_from_data({"kind": layer_kinds.CONVOLUTION.name, "name": "convolution-L3", "n": n, "kernel": [mat(m, m) for _ in range(3)]})
    ti = selective_from_ssm(ssm(mat(N, N), mat(N, m), mat(m, N), name="ti-ssm-N4"), n)
    sel_B, sel_C = mat(N, m), mat(m, N)
    selective = selective_bilinear(continuous, sel_B, sel_C, steps, name="selective-ssm-N4")
    gates = [f"{rng.randint(1, 9)}/10" for _ in range(n)]
    mamba = mamba2_layer(gates, [[small() for _ in range(N)] for _ in range(n)],
                         [[small() for _ in range(N)] for _ in range(n)], m, name="mamba2-head")
    # the same layers for every input
    symbols = [f"h{i}" for i in range(1, n + 1)]
    base = _bilinear_family(continuous, sel_B, "selective", N)
    every_step = {"kind": layer_kinds.SELECTIVE_SSM.name, "name": "selective-ssm-N4-every-step", "parameters": symbols,
                  "A": [[[x.replace("h", h) for x in row] for row in base.formulas["A"]] for h in symbols],
                  "B": [[[x.replace("h", h) for x in row] for row in base.formulas["B"]] for h in symbols],
                  "C": [sel_C] * n}
    mj = layer_json(mamba)
    size = len(mj["A"][0])
    names = [f"a{i}" for i in range(1, n + 1)]
    every_gate = {"kind": layer_kinds.SELECTIVE_SSM.name, "name": "mamba2-head-every-gate", "parameters": names,
                  "A": [[[a if r == c else "0" for c in range(size)] for r in range(size)] for a in names],
                  "B": mj["B"], "C": mj["C"]}
    X = [[f"x{i}{j}" if m > 1 else f"x{i}" for j in range(1, m + 1)] for i in range(1, n + 1)]
    every_token = {"kind": layer_kinds.LINEAR_ATTENTION.name, "name": "linear-attention-H2-every-input",
                   "parameters": [x for row in X for x in row], "X": X,
                   "heads": [{k: [[format_rational(v) if not isinstance(v, int) else v for v in row] for row in M]
                              for k, M in head.items()} for head in heads[2]]}
    every = {"selective-ssm-N4": ("the steps h_i", every_step), "mamba2-head": ("the gates a_i", every_gate),
             "linear-attention-H2": ("the tokens x_i", every_token)}
    layers = [feedforward, conv, ti, selective, mamba, attention(layer_kinds.LINEAR_ATTENTION.name, 2),
              attention(layer_kinds.SOFTMAX_ATTENTION.name, 2)]
    for name, spec, what, parameters in _recurrent_rows(rng, n, m):
        layers.append(layer_from_data(_at(spec, parameters)))
        every[name] = (what, spec)
    return [(*FRAMEWORK_ROWS[layer.name][:2], layer, every.get(layer.name)) for layer in layers]


def _at(value, point):
    """A spec with parameters at a point: every parameter's name replaced by its value, ``parameters`` dropped."""
    if isinstance(value, dict):
        return {k: _at(v, point) for k, v in value.items() if k != "parameters"}
    if isinstance(value, list):
        return [_at(v, point) for v in value]
    return point.get(value, value) if isinstance(value, str) else value


def _recurrent_rows(rng, n, m):
    """The linear-recurrence rows: ``(name, spec with parameters, what they are, the seeded point)``.

    One head whose values are ``v_j = V x_j`` (``d_v = m``), queries and keys of width 2 drawn from ``rng``; the
    input-dependent quantities of each (gates, decays, shifts) are the parameters, at seeded values in the row.
    """
    from .sources import layer_kinds

    small = lambda: rng.randint(-3, 3)  # noqa: E731
    mat = lambda r, c: [[small() for _ in range(c)] for _ in range(r)]  # noqa: E731
    tenth = lambda: f"{rng.randint(1, 9)}/10"  # noqa: E731
    rows = []

    def add(name, kind, what, spec, names):
        point = {x: tenth() for x in names}
        rows.append((name, dict(spec, kind=kind, name=name, parameters=names), what, point))

    q, k, V = mat(n, 2), mat(n, 2), mat(m, m)
    alphas = [[f"a{i}{c}" for c in (1, 2)] for i in range(1, n + 1)]
    add("gla-head", layer_kinds.GLA.name, "the key gates alpha_i",
        {"V": V, "heads": [{"q": q, "k": k, "alpha": alphas}]}, [x for row in alphas for x in row])
    gla_gates = {x: tenth() for row in alphas for x in row}
    gates = [["1"] + [f"g{i}"] * (m - 1) for i in range(1, n + 1)]
    add("gla-head-gated", layer_kinds.GLA.name, "the output gates g_i",
        {"V": V, "gate": gates, "heads": [{"q": q, "k": k, "alpha": _at(alphas, gla_gates)}]},
        [f"g{i}" for i in range(1, n + 1)])
    add("retnet-H2", layer_kinds.RETNET.name, "the decays gamma_h",
        {"V": mat(2, m), "out": mat(m, 2), "heads": [{"q": mat(n, 2), "k": mat(n, 2), "gamma": f"c{h}"}
                                                     for h in (1, 2)]}, ["c1", "c2"])
    decays = [f"a{i}" for i in range(1, n + 1)]
    add("gated-deltanet-conv", layer_kinds.GATED_DELTANET.name, "the decays alpha_i",
        {"V": V, "conv": [[1] * m, mat(1, m)[0]], "value_gate": [[tenth() for _ in range(m)] for _ in range(n)],
         "heads": [{"q": mat(n, 2), "k": mat(n, 2), "beta": ["1/2"] * n, "alpha": decays}]}, decays)
    shifts = [[f"d{i}{c}" for c in range(1, m + 1)] for i in range(2, n + 1)]
    add("rwkv6-shift", layer_kinds.RWKV6.name, "the token shifts delta_j",
        {"V": V, "shift": [["0"] * m] + shifts,
         "heads": [{"r": mat(n, 2), "k": mat(n, 2), "w": [[tenth(), tenth()] for _ in range(n)], "u": ["1", "2"]}]},
        [x for row in shifts for x in row])
    return rows


#: Cases a framework row's theorem for every input may split into (the rest is left uncovered, and said so):
#: the certificate's own limit, so that the row is complete wherever the covering rules decide every factor
#: (linear attention on six 2-d tokens: 997 cases).
FRAMEWORK_CASES = MAX_CASES
_INDEPENDENT = {"feedforward", "convolution, 3 taps", "time-invariant SSM, N = 4"}  # FRAMEWORK_ROWS' fourth field


def _every_input(label, spec):
    """(column text, certificate or None) for one framework row's theorem for every input."""
    from .api import verified
    from .certificate.parametric_interaction import parametric_interaction_data
    from .errors import InputError, LimitError
    from .sources.parametric_layers import parametric_layer_from_data

    if spec is None:
        if label in _INDEPENDENT:
            return "same r for every X (W_ij does not depend on X)", None
        return "not certified (the weights are not rational functions of X)", None
    what, data = spec
    try:  # verified() hands it out once the independent checker has verified it
        cert = verified(parametric_interaction_data(parametric_layer_from_data(data), max_cases=FRAMEWORK_CASES))
    except LimitError:
        return f"not certified (with {what} as parameters the polynomials exceed the limits of the proof)", None
    except InputError as exc:  # pragma: no cover - the built-in specs are valid
        return f"not certified ({str(exc)[:80]})", None
    from .render.claims import claim

    c = claim(cert.data)
    if c.everywhere:
        return f"r = {c.value} for every value of {what} (complete)", cert
    return (f"r <= {c.at_most} for every value of {what}, r = {c.value} generically (off the certificate's exceptional "
            f"set, where its cases give r = {', '.join(str(v) for v in c.cases if v != c.value)})"
            + ("" if c.complete else "; not complete: undecided where an uncovered factor vanishes"), cert)


def build_framework(out=None, *, seed=0, n=6, m=2, every_input=True):
    """Certify the interaction rank of each architecture of the unified framework on one seeded input.

    Returns rows ``(architecture, bound, certificate, every)``, ``every`` = ``(text, certificate or
    None)`` for the theorem for every input (the input-dependent quantities made parameters; None
    without ``every_input``); with ``out``, writes each certificate, its LaTeX, ``framework.tex``
    (the table) and ``framework.md``.

    Raises
    ------
    OutputError
        If ``out`` exists and is not a folder.
    """
    from .api import certify
    from .errors import OutputError
    from .formats.progress import report

    rows = []
    layers = list(_framework_layers(seed, n, m))
    steps = len(layers) * (2 if every_input else 1)  # each layer's certificate, then its theorem for every input
    for i, (label, bound, layer, spec) in enumerate(layers):
        step = i * (2 if every_input else 1)
        report(step, steps, label)
        cert = certify(layer)  # verified by the independent checker
        if every_input:
            report(step + 1, steps, f"{label}, for every input")
        rows.append((label, bound, cert, _every_input(label, spec) if every_input else None))
    report(steps, steps)
    if out is not None:
        if os.path.exists(out) and not os.path.isdir(out):
            raise OutputError(f"cannot write the framework table into {out}: it is not a folder")
        os.makedirs(out, exist_ok=True)
        for _, _, cert, every in rows:
            _write_verified(out, f"framework-{cert['system']['name']}", cert)
            if every is not None and every[1] is not None:
                _write_verified(out, f"framework-{every[1]['system']['name']}", every[1])
        atomic_write(os.path.join(out, "framework.tex"), framework_latex(rows, seed=seed, n=n, m=m))
        atomic_write(os.path.join(out, "framework.md"), framework_markdown(rows, seed=seed, n=n, m=m))
    return rows


def framework_markdown(rows, *, seed, n, m):
    """The framework table in Markdown."""
    lines = [f"# The unified framework, certified (seed {seed}, n = {n} tokens, p = m = {m})", "",
             "Each row is an independently checked `interaction-rank` certificate: the blocks W_ij of the layer on",
             "the same seeded input span exactly r dimensions, so exactly r attention heads are necessary and",
             "sufficient in the multi-head factorized class (signed, unnormalised, input-specific coefficients",
             "alpha^h_ij(X) with shared value maps V_h) to represent the layer's interaction operator on that input.",
             "The column \"for all inputs\" is a `parametric-interaction-rank` certificate where the input-dependent",
             "quantities are parameters (a theorem for every value of them: the rank at every input, or at most r",
             "at every input and r generically, off an exceptional set where the certificate gives the other",
             "values), or says why there is none.", "",
             "| architecture | structural bound | certified r | for all inputs | certificate |", "|---|---|---|---|---|"]
    for label, bound, cert, every in rows:
        text = "-" if every is None else every[0] + (f" (framework-{every[1]['system']['name']}.json)"
                                                      if every[1] is not None else "")
        lines.append(f"| {label} | {bound} | {cert['interaction_rank']} | {text} | "
                     f"framework-{cert['system']['name']}.json |")
    return "\n".join(lines) + "\n"


def framework_latex(rows, *, seed, n, m):
    """The framework table as a LaTeX fragment (fits a two-column article's column), between marker comments
    that list its certificates, so that ``symssm audit`` re-checks them and re-renders the table."""
    from .render.framework import framework_table

    return framework_table([(cert.data, every[1].data if every is not None and every[1] is not None else None)
                            for _label, _bound, cert, every in rows], seed=seed, n=n, m=m)
