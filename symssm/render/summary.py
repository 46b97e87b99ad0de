"""Plain-text summaries the command line prints: one function per report.

Every string from an input (a system's name) goes through :func:`terminal_safe` first, so a
name holding escape sequences cannot clear the screen or forge a VERIFIED line.

Examples
--------
>>> terminal_safe("ok\\x1b[2J\\nVERIFIED")
'ok\\\\x1b[2J\\\\nVERIFIED'
"""

__all__ = ["terminal_safe", "describe", "describe_layer", "head_count_summary", "interaction_summary", "interaction_family_summary", "describe_parametric_layer",
           "gradient_summary", "numeric_summary", "approximate_summary"]


def terminal_safe(text):
    """``text`` with every control character (C0, DEL, C1, line and paragraph separators) escaped."""
    out = []
    for ch in str(text):
        code = ord(ch)
        if code < 32 or 127 <= code < 160 or code in (0x2028, 0x2029) or 0xD800 <= code < 0xE000:
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                       if not 0xD800 <= code < 0xE000 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def describe(system):
    """One line: the system's name and dimensions."""
    name = terminal_safe(system.name) if system.name else "(unnamed system)"
    return f"{name}: N = {system.N}, m = {system.m}, p = {system.p}{', D present' if system.has_D else ''}"


def describe_family(system):
    """One line: a parametric family's name, dimensions and parameters."""
    name = terminal_safe(system.name) if system.name else "(unnamed family)"
    return (f"{name}: N = {system.N}, m = {system.m}, p = {system.p}{', D present' if system.has_D else ''}; "
            f"parameters {', '.join(system.parameters) or 'none'}")


def parametric_summary(cert):
    """Short human summary of verified parametric head-count data (lines of text)."""
    from .parametric import parametric_lines

    return [terminal_safe(line) for line in parametric_lines(cert)]


def interaction_family_summary(cert):
    """Short human summary of verified interaction ranks for every input (lines of text)."""
    from .parametric_interaction import interaction_family_lines

    return [terminal_safe(line) for line in interaction_family_lines(cert)]


def describe_parametric_layer(layer):
    """One line: a layer with parameters, its kind, sizes and parameters."""
    name = terminal_safe(layer.name) if layer.name else "(unnamed layer)"
    return (f"{name}: {layer.kind} layer, n = {layer.n} tokens, m = {layer.m}, p = {layer.p}; "
            f"parameters {', '.join(layer.parameters) or 'none'}")


def head_count_summary(cert):
    """Short human summary of verified head-count certificate data (lines of text)."""
    k, n = cert["head_count"], cert["n"]
    prof = cert["profile"]
    hf = cert["holds_for"]
    lb = cert["lower_bound"]
    vals = prof["values"]
    shown = ", ".join(map(str, vals[:12])) + (", ..." if len(vals) > 12 else "")
    upto = f"for every n from {hf['from']}" + (f" to {hf['to']}" if hf["to"] is not None else " on")
    lines = [
        f"k({n}) = {k}: exactly {k} attention head{'s' if k != 1 else ''} necessary and sufficient "
        f"in the multi-head factorized class on length-{n} sequences ({upto})",
        f"profile: k(1..{len(vals)}) = {shown}; k(n) = {prof['eventual']} for all n >= {prof['constant_from']}",
    ]
    if k >= 2:
        lines.append(f"Interaction Rank Gap: single-head attention fails; every H < {k} fails "
                     f"(H = {', '.join(str(h) for h in range(min(k, 8)))}{', ...' if k > 8 else ''})")
    elif k == 1:
        lines.append("a single head suffices in the multi-head factorized class (H = 0 fails)")
    if k:
        if lb["method"] == "exact":
            det = lb["determinant"]
            lines.append(f"witness: exact {k}x{k} minor of lags {lb['lags'][:k]}, "
                         f"det = {det if len(det) < 60 else det[:57] + '...'}")
        else:
            lines.append(f"witness: {len(lb['lags'])}x{len(lb['lags'])} minor nonzero modulo the prime {lb['prime']}")
    return lines


def gradient_summary(d, n):
    """Short human summary of verified gradient-highway certificate data (lines of text)."""
    delta = d["crossover_distance"]
    cg = d["computation_graph"]
    return [
        f"SSM decay: ||L_d||_F <= K r^d for d >= 1 with r = {d['decay_rate']}, K^2 = {d['decay_constant_squared']}",
        f"attention highway: ||dy_i/dx_j||_F >= c = {d['attention_lower_bound']} for every distance 1..{n - 1}",
        "crossover: " + (f"attention provably carries more gradient from distance {delta} on (up to n = {n})"
                         if delta is not None else f"none certified within n = {n}"),
        f"computation graph: x_j -> y_i takes i - j + 2 edges in the SSM "
        f"({', '.join(map(str, cg['ssm_path_edges'][1:6]))}, ...), {cg['attention_path_edges'][1]} in attention",
    ]


def numeric_summary(res, n):
    """The numeric command's report (lines of text), labelled numerical."""
    k = res.numerical_head_count
    s = res.singular_values
    gap = ("infinite (no singular value below the tolerance)" if res.gap is None else f"{res.gap:.3e}")
    lines = [
        f"NUMERICAL RESULT (float64 on {res.backend}, device {res.device}): not a certificate",
        f"system: {terminal_safe(res.name) if res.name else '(unnamed)'}, n = {n}",
        f"numerical head count k = {k} at relative tolerance tau = {res.tolerance:g}; gap s_k/s_(k+1) = {gap}",
        "singular values of the normalised lag stack: " + ", ".join(f"{v:.3e}" for v in s[:16])
        + (", ..." if len(s) > 16 else ""),
        f"best H-head relative error of the length-{n} operator ({res.approximation_method}):",
    ]
    lines += [f"  H = {H:3d}: {e:.3e}" for H, e in enumerate(res.approximation_error)]
    lines.append("For an exact, certified head count: symssm certify SPEC (exact entries).")
    return lines


def describe_layer(layer):
    """One line: the layer's name, kind and sizes."""
    name = terminal_safe(layer.name) if layer.name else "(unnamed layer)"
    return f"{name}: {layer.kind} layer, n = {layer.n} tokens, m = {layer.m}, p = {layer.p}"


def interaction_summary(cert):
    """Short human summary of verified interaction-rank certificate data (lines of text)."""
    r = cert["interaction_rank"]
    lb = cert["lower_bound"]
    lines = [f"r = {r}: the blocks W_ij span exactly {r} dimension{'s' if r != 1 else ''}, so exactly {r} "
             f"attention head{'s are' if r != 1 else ' is'} necessary and sufficient in the multi-head factorized "
             "class on this input"]
    if r >= 2:
        lines.append(f"Interaction Rank Gap: single-head attention fails on this input; every H < {r} fails")
    elif r == 1:
        lines.append("a single head suffices in the multi-head factorized class on this input (H = 0 fails)")
    if r:
        blocks = ", ".join(f"({i},{j})" for i, j in lb["blocks"][:8]) + (", ..." if r > 8 else "")
        how = (f"exact {r}x{r} minor, det = {lb['determinant'][:40]}" if lb["method"] == "exact" else
               f"{r}x{r} minor whose determinant's interval enclosure excludes 0")
        lines.append(f"witness: blocks {blocks}; {how}")
    return lines


def _short(text):
    from fractions import Fraction

    value = Fraction(text)
    return "0" if value == 0 else f"{float(value):.6g}"


def approximate_summary(cert):
    """Short human summary of verified eps-head-count certificate data (lines of text)."""
    n, tol, k = cert["n"], _short(cert["tolerance"]), cert["head_count"]
    errs = cert["errors"]
    lines = []
    if not errs:
        return [f"the operator on length-{n} sequences is zero: 0 heads reach any tolerance"]
    if k is not None:
        exact = errs[k]["upper"] == "0"
        verb = ("represents" if k == 1 else "represent") if exact else ("approximates" if k == 1 else "approximate")
        lines.append(f"k_eps = {k}: {k} head{'s' if k != 1 else ''} {verb} the SSM on length-{n} sequences "
                     + ("exactly (relative error 0)" if exact else
                        f"to relative error <= {_short(errs[k]['upper'])} <= {tol}")
                     + (f"; {k - 1} cannot get below {_short(errs[k - 1]['lower'])} > {tol}" if k else ""))
    else:
        h = cert["undecided_at"]
        lines.append(f"no eps-head count claimed: e_{h} lies in [{_short(errs[h]['lower'])}, {_short(errs[h]['upper'])}],"
                     f" around the tolerance {tol}")
    if "tail" in cert:
        lines.append(f"the first {cert['tail']['summed']} lags are summed exactly; the rest are bounded by a certified "
                     f"decay at rate {_short(cert['tail']['decay_rate'])} (relative distance "
                     f"{_short(cert['tail']['relative_distance'])})")
    lines.append("certified brackets (relative error of the best H-head model, Eckart-Young, rows weighted by "
                 "sqrt(n - d)):")
    for e in errs:
        lines.append(f"  H = {e['H']}: e_H in [{_short(e['lower'])}, {_short(e['upper'])}]")
    return lines
