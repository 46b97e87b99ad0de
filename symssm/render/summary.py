"""Plain-text summaries the command line prints: one function per report.

Every string from an input (a system's name) goes through :func:`terminal_safe` first, so a
name holding escape sequences cannot clear the screen or forge a VERIFIED line.

Examples
--------
>>> terminal_safe("ok\\x1b[2J\\nVERIFIED")
'ok\\\\x1b[2J\\\\nVERIFIED'
"""

__all__ = ["terminal_safe", "describe", "describe_complex", "describe_trained", "describe_family", "parametric_summary",
           "describe_layer", "head_count_summary", "interaction_summary", "interaction_family_summary", "describe_parametric_layer",
           "gradient_summary", "numeric_summary", "count_text", "error_text", "approximate_summary", "curve_text", "model_summary",
           "certified_line", "map_line"]


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


def describe_complex(system):
    """One line: a complex system's name and dimensions, over Q(i)."""
    return describe(system) + " (over Q(i))"


def describe_trained(layer):
    """One line: a trained layer's name, architecture and sizes."""
    name = terminal_safe(layer.name) if layer.name else "(unnamed layer)"
    return f"{name}: trained {layer.architecture} layer, {layer.channels} channel(s), {layer.modes} mode(s)"


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
    from .claims import claim

    k, n = cert["head_count"], cert["n"]
    prof = cert["profile"]
    hf = cert["holds_for"]
    lb = cert["lower_bound"]
    vals = prof["values"]
    shown = ", ".join(map(str, vals[:12])) + (", ..." if len(vals) > 12 else "")
    upto = f"for every n from {hf['from']}" + (f" to {hf['to']}" if hf["to"] is not None else " on")
    lines = [
        f"k({n}) = {k}: exactly {k} attention head{'s' if k != 1 else ''} necessary and sufficient "
        f"in the multi-head factorized class on length-{n} sequences ({upto}) to represent the SSM's interaction "
        "operator (W_ij(X) = L_{i-j} for every input X)",
    ]
    if k:
        lines.append(map_line(claim(cert), k))
    lines += [
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


def map_line(c, k, what="the SSM's"):
    """The command line's sentence on the map itself (the claim's map necessity).

    Examples
    --------
    >>> from symssm.render.claims import Claim
    >>> c = Claim("head-count", "k(n)", 3, "Q", 2, 2, "input-dependent", "interaction operator", "input-independent",
    ...           (3, None), "every input")
    >>> map_line(c, 3)[:71]
    'for the map itself: H >= 3 is necessary among models whose coefficients'
    """
    if c.map_necessity == "any":
        return (f"for the map itself as well ({'m' if c.m == 1 else 'p'} = 1): a model computes {what} map on these "
                f"sequences, whatever its coefficients, if and only if H >= {k}")
    return (f"for the map itself: H >= {k} is necessary among models whose coefficients do not depend on the input "
            "(with input-dependent coefficients and p, m >= 2 a map can need fewer heads than its operator)")


def gradient_summary(d, n=None):
    """Short human summary of verified gradient-highway certificate data (lines of text; ``n``: its length)."""
    from ..gradient.crossover import searched_distance

    n = d["n"] if n is None else n
    delta = d["crossover_distance"]
    cg = d["computation_graph"]
    return [
        f"SSM decay: ||L_d||_F <= K r^d for d >= 1 with r = {d['decay_rate']}, K^2 = {d['decay_constant_squared']}",
        f"attention highway: ||dy_i/dx_j||_F >= c = {d['attention_lower_bound']} for every distance 1..{n - 1}",
        "crossover: " + (f"the certified bounds cross at distance {delta}: attention provably carries more gradient "
                         f"from there on (up to n = {n}); the SSM's ||L_d||_F may fall below c at a smaller distance "
                         "(not decided by the bounds)"
                         if delta is not None else f"none certified up to distance {searched_distance(n)}"
                         + (" (the limit of the search; not that attention never overtakes)"
                            if n - 1 > searched_distance(n) else "")),
        f"computation graph: x_j -> y_i takes i - j + 2 edges in the SSM "
        f"({', '.join(map(str, cg['ssm_path_edges'][1:6]))}, ...), {cg['attention_path_edges'][1]} in attention",
    ]


def curve_text(errors, cut, *, digits=3, most=24, precision=0.0):
    """``e_0, e_1, ..., e_k`` as text (the middle elided past ``most`` values), ``...`` at the end when cut.

    Values below ``precision`` (the curve's accuracy) read ``below precision``, never as numbers.

    Examples
    --------
    >>> curve_text([1.0, 0.25, 1e-12], True)
    '1.000e+00, 2.500e-01, 1.000e-12, ...'
    >>> curve_text([1.0, 0.25, 0.0], False, precision=1e-8)
    '1.000e+00, 2.500e-01, below precision (< 1.0e-08)'
    """
    fmt = [f"below precision (< {precision:.1e})" if e < precision else f"{e:.{digits}e}" for e in errors]
    if len(fmt) > most:
        fmt = fmt[:most - 4] + [f"... ({len(fmt) - most + 3} more)"] + fmt[-3:]
    return ", ".join(fmt) + (", ..." if cut else "")


def count_text(res):
    """The numerical head count as it may be quoted: one number, or the range of H the curve cannot tell apart.

    Examples
    --------
    >>> from symssm.numeric.headcount import NumericResult
    >>> r = NumericResult("", 8, 3, (), 1e-10, None, (1.0, 1e-9, 1e-11, 0.0), "gram", "numpy", "cpu", precision=1e-8,
    ...                   exact_heads=3)
    >>> count_text(r)
    'between 1 and 3 (unresolved: e_H for H >= 1 is within the precision 1.0e-08 of tau = 1e-10 or below it)'
    """
    low, high = res.head_count_range
    if low == high:
        if res.resolved:
            return f"k = {high}"
        return (f"k = {high} (tau = {res.tolerance:g} is below the curve's precision {res.precision:.1e}, but "
                + (f"e_{high - 1} exceeds tau by more than it, and " if high else "")
                + f"{high} heads represent the operator exactly)")
    return (f"between {low} and {high} (unresolved: e_H for H >= {low} is within the precision {res.precision:.1e} "
            f"of tau = {res.tolerance:g} or below it)")


def unresolved_note(res):
    """Why an unresolved count is unresolved, and what would resolve it.

    Either the tolerance is at or below the curve's precision (a larger tolerance helps), or some
    computed ``e_H`` lies within the precision of the tolerance (the curve cannot say on which side
    of tau it is; a tolerance farther from that ``e_H`` helps).

    Examples
    --------
    >>> from symssm.numeric.headcount import NumericResult
    >>> r = NumericResult("", 8, 1, (), 0.5, 1.0, (1.0, 0.5), "direct", "numpy", "cpu", precision=5e-15,
    ...                   exact_heads=2)
    >>> unresolved_note(r)
    'note: e_1 = 5.000e-01 is within the precision of this curve (about 5.0e-15, the direct form) of tau = 0.5, so the curve cannot say on which side of tau it lies: a tolerance farther from it (--tolerance) tells the counts apart'
    """
    how = f"about {res.precision:.1e}, the {res.approximation_method} form"
    if res.tolerance <= res.precision:
        return (f"note: tau = {res.tolerance:g} is not above the precision of this curve ({how}): a tolerance "
                "above it (--tolerance) tells the counts apart")
    near = [H for H, e in enumerate(res.approximation_error) if abs(e - res.tolerance) <= res.precision]
    if not near:
        return f"note: the precision of this curve is {how}"
    which = ", ".join(f"e_{H} = {error_text(res, H)}" for H in near)
    return (f"note: {which} {'is' if len(near) == 1 else 'are'} within the precision of this curve ({how}) of "
            f"tau = {res.tolerance:g}, so the curve cannot say on which side of tau {'it lies' if len(near) == 1 else 'they lie'}: "
            f"a tolerance farther from {'it' if len(near) == 1 else 'them'} (--tolerance) tells the counts apart")


def error_text(res, H, *, digits=3):
    """``e_H`` as measured, or ``below precision`` (with the precision) where the float value says nothing.

    Examples
    --------
    >>> from symssm.numeric.headcount import NumericResult
    >>> r = NumericResult("", 8, 2, (), 1e-3, None, (1.0, 0.5, 0.0), "gram", "numpy", "cpu", precision=1e-8)
    >>> error_text(r, 1), error_text(r, 2)
    ('5.000e-01', 'below precision (< 1.0e-08)')
    """
    if res.below_precision(H):
        return f"below precision (< {res.precision:.1e})"
    return f"{res.approximation_error[H]:.{digits}e}"


def numeric_summary(res, n):
    """The numeric command's report (lines of text), labelled numerical.

    An unresolved count reads as the range of H it cannot tell apart, never as one number; an error
    below the curve's precision reads ``below precision``, never as a measured value.
    """
    k = res.numerical_head_count
    gap = "infinite (no singular value after s_k)" if res.gap is None else f"{res.gap:.3e}"
    if res.resolved:
        head = (f"numerical head count k = {k}: the least H whose best H-head relative error e_H is at most tau = "
                f"{res.tolerance:g}" + (f" (e_{k - 1} = {error_text(res, k - 1)} > tau >= e_{k}"
                                        + (f", below the curve's precision {res.precision:.1e})" if res.below_precision(k)
                                           else f" = {error_text(res, k)})") if k else "")
                + f"; gap s_k/s_(k+1) = {gap}")
    else:
        head = f"numerical head count at tau = {res.tolerance:g}: {count_text(res)}; gap s_k/s_(k+1) = {gap}"
    lines = [
        f"NUMERICAL RESULT (float64 on {res.backend}, device {res.device}): not a certificate",
        f"system: {terminal_safe(res.name) if res.name else '(unnamed)'}, n = {n}",
        head,
        f"best H-head relative error of the length-{n} operator ({res.approximation_method}), H = 0..{k}"
        + (", until it is below tau:" if res.approximation_error_cut else ":"),
    ]
    shown = list(range(len(res.approximation_error)))
    if len(shown) > 24:
        shown = shown[:20] + [None] + shown[-3:]
    lines += ["  ..." if H is None else f"  H = {H:3d}: {error_text(res, H)}" for H in shown]
    if res.approximation_error_cut:
        lines.append("  ...")
    if not res.resolved:
        lines.append(unresolved_note(res))
    lines.append(f"normalised-lag rank (a diagnostic, not the count; threshold {res.lag_rank_tolerance:g}): "
                 f"{res.lag_rank}")
    lines.append("For an exact, certified count: symssm certify SPEC --tolerance EPS (the eps-head count), or symssm "
                 "certify SPEC (the exact head count).")
    return lines


def certified_line(layer):
    """``model --certificates``: the certified eps-head count of a layer, or why there is none."""
    if layer["certificate"] is None:
        return f"certified eps-head count: none ({terminal_safe(layer['certificate_note'])})"
    errs, k = layer["certified_errors"], layer["certified_head_count"]
    if k is None:
        h = layer["certified_undecided_at"]
        text = (f"no certified eps-head count: e_{h} lies in [{_short(errs[h]['lower'])}, {_short(errs[h]['upper'])}], "
                "around the tolerance")
    else:
        text = (f"certified eps-head count {k}: e_{k} <= {_short(errs[k]['upper'])}"
                + (f", e_{k - 1} >= {_short(errs[k - 1]['lower'])}" if k else ""))
    return text + f"; certificate {terminal_safe(layer['certificate'])} (verified by the independent checker)"


def _sizes_text(sizes):
    keep = []
    for k, v in sizes.items():
        if v in (None, [], "", False) or k in ("source", "shapes", "n_groups_from", "top_k_from", "heads_note",
                                                "fused_attention_rows", "norms", "sum", "shape"):
            continue
        if v is True:
            keep.append(k.replace("_", " "))
        elif isinstance(v, list):
            keep.append(f"{k} " + ("x".join(str(x) for x in v) if all(isinstance(x, int) for x in v) else
                                    ", ".join(str(x) for x in v)))
        else:
            keep.append(f"{k} {v}")
    return ", ".join(keep)


def _layer_lines(layer, tolerance, indent="  "):
    name = terminal_safe(layer["name"])
    lines = []
    kind = layer["kind"]
    if "numerical_interaction_rank" in layer and layer.get("family"):  # a linear-recurrence layer as its kind
        r = layer["numerical_interaction_rank"]
        gap = "infinite" if layer.get("gap") is None else f"{layer['gap']:.3e}"
        lines.append(f"{indent}{name} ({layer['label']}, {layer['heads']} heads, d_k {layer['key_head_dim']}, d_v "
                     f"{layer['value_head_dim']}, state {layer['state']} = heads x d_k x d_v; read as "
                     f"{terminal_safe(layer['family'])}): numerical interaction rank {r} of its blocks W_ij "
                     f"({layer['outputs']} x {layer['inputs']}) on {'a seeded' if layer.get('input') != 'model' else 'the'}"
                     f" input of {layer['tokens']} tokens at tau = {layer['tolerance']:g}; gap s_r/s_(r+1) = {gap} "
                     "(its queries, keys, decays and gates depend on the input: not a head count for every input)")
        lines.append(f"{indent}  best H-head relative error of that operator, H = 0..{r}: "
                     + curve_text(layer["approximation_error"], layer["approximation_error_cut"], digits=1))
        if layer.get("heads_interaction_rank") is not None:
            lines.append(f"{indent}  heads' coefficients c^h_ij (values to the heads' outputs, as a Mamba-2 scan): "
                         f"numerical rank {layer['heads_interaction_rank']} of {layer['heads']} heads")
    elif "numerical_interaction_rank" in layer:
        r = layer["numerical_interaction_rank"]
        state = f"{layer['state']}{' assumed' if layer.get('state_assumed') else ''}"
        extra = ""
        if kind == "mamba2":
            extra = (f", {layer['heads']} heads x headdim {layer.get('headdim')}, n_groups {layer.get('n_groups')}"
                     + (" (assumed)" if "assumed" in str(layer.get("n_groups_from")) else ""))
        lines.append(f"{indent}{name} ({layer['label']}, {layer['channels']} channels{extra}, state {state}): numerical "
                     f"interaction rank {r} on {'a seeded' if layer.get('input') != 'model' else 'the'} input of "
                     f"{layer['tokens']} tokens (its B, C and step depend on the input: not a head count for every "
                     "input)")
        lines.append(f"{indent}  best H-head relative error of that operator, H = 0..{r}: "
                     + curve_text(layer["approximation_error"], layer["approximation_error_cut"], digits=1))
        if layer.get("layer_interaction_rank") is not None:
            lines.append(f"{indent}  the whole layer (in_proj to out_proj, as the linear-recurrence layers): "
                         f"numerical interaction rank {layer['layer_interaction_rank']} on the same input")
        elif layer.get("layer_interaction_note"):
            lines.append(f"{indent}  the whole layer: {terminal_safe(layer['layer_interaction_note'])}")
    elif "numerical_head_count" in layer:
        k = layer["numerical_head_count"]
        gap = "infinite" if layer["gap"] is None else f"{layer['gap']:.3e}"
        low = next((H for H, e in enumerate(layer["approximation_error"][:k])
                    if e <= tolerance + layer["precision"]), k)
        count = (f"{k}" if layer["resolved"] and low == k else
                 f"between {low} and {k} (unresolved)" if low < k else f"{k} (unresolved)")
        lines.append(f"{indent}{name} ({layer['label']}, {layer['channels']} channels, state {layer['state']}): numerical "
                     f"head count {count}; gap s_k/s_(k+1) = {gap}; normalised-lag rank (diagnostic) "
                     f"{'not computed' if layer['lag_rank'] is None else layer['lag_rank']}")
        lines.append(f"{indent}  best H-head relative error, H = 0..{k}: "
                     + curve_text(layer["approximation_error"], layer["approximation_error_cut"], digits=1,
                                  precision=layer["precision"]))
        if not layer["resolved"]:
            lines.append(f"{indent}  note: tau is below this curve's precision (about {layer['precision']:.1e}): the "
                         "count at tau is not resolved")
        if layer["D"] == "absent":
            lines.append(f"{indent}  note: no D in the checkpoint for this layer: its operator is the kernel alone")
    elif kind == "attention":
        heads = layer.get("heads")
        ranks = layer.get("value_ranks")
        what = (f"{heads} heads, {layer.get('kv_heads')} kv heads, head dim {layer.get('head_dim')}" if heads else
                "heads not recorded (no config.json)")
        lines.append(f"{indent}{name} (attention, {what}): "
                     + (f"value-map ranks rank(W_O^h W_V^h) = {', '.join(str(r) for r in ranks)} (numeric)" if ranks
                        else (f"rank of W_O W_V {layer['value_map_rank']} (numeric)" if "value_map_rank" in layer
                              else terminal_safe(layer.get("value_ranks_note", "")))))
    elif kind == "parallel":
        lines.append(f"{indent}{name} (parallel block: {terminal_safe(layer['sizes'].get('sum', 'W = W_ssm + W_attn'))}"
                     ", both branches on the same input)")
        for part in layer.get("parts", []):
            lines.extend(_layer_lines(part, tolerance, indent + "  "))
    else:
        sizes = _sizes_text(layer.get("sizes", {}))
        status = layer.get("status", "")
        text = f"{indent}{name} ({layer['label']}{', ' + terminal_safe(sizes) if sizes else ''})"
        if status in ("not analysed", "not recognised"):
            text += f": {status}: {terminal_safe(layer.get('reason', ''))}"
        lines.append(text)
    if layer.get("note") and kind not in ("mamba", "mamba2") and "numerical_head_count" not in layer \
            and not layer.get("family"):
        lines.append(f"{indent}  note: {terminal_safe(layer['note'])}")
    hw = layer.get("highway") or {}
    if hw.get("effective_state") is not None:
        lines.append(f"{indent}  Hankel singular values (effective state {hw['effective_state']} of "
                     f"{hw.get('state_dimension')} state dimensions: those above tau x the largest): " + ", ".join(f"{v:.1e}" for v in hw["hankel_singular_values"][:8])
                     + (", ..." if len(hw["hankel_singular_values"]) > 8 else ""))
    if hw.get("decay_rate") is not None:
        where = ("for every input (time-invariant)" if "numerical_head_count" in layer else
                 "on the input (the largest norm of a head's per-token state transition)" if layer.get("family") else
                 "on the input (the largest per-token factor exp(Delta_t A))")
        cross = hw.get("crossover_distance")
        lines.append(f"{indent}  gradient: decay rate {hw['decay_rate']:.6g} per token {where}, numeric; "
                     + (f"the attention highway's bound ({hw['attention_bound']:.3g}) exceeds K r^d from distance "
                        f"{cross} on" if cross else "no crossover within reach"))
    if hw.get("certified_decay"):
        lines.append(f"{indent}  decay for every input (step >= its lower limit): rate <= "
                     f"{hw['certified_decay']['rate_float']:.6g} per token (ball arithmetic)")
    if "certificate" in layer:
        lines.append(indent + "  " + certified_line(layer))
        certified = layer.get("certified_head_count")
        if certified is not None and layer.get("numerical_head_count") not in (None, certified):
            lines.append(f"{indent}  note: the numerical count {layer['numerical_head_count']} differs from the "
                         "certified one (tau within the curve's precision of an error); the certified count is proven")
    return lines


def model_summary(report, tolerance):
    """``symssm model``: one block per layer, every layer in order (lines of text), labelled numerical."""
    layers = report["layers"]
    counted = [x for x in layers if x["kind"] not in ("embedding", "norm", "output", "buffer")]
    lti = [layer for layer in layers if "numerical_head_count" in layer]
    head = (f"NUMERICAL RESULTS (float64): not certificates; {len(counted)} layer(s)"
            + (f" of a {terminal_safe(str(report['model_type']))} model" if report.get("model_type") else "")
            + (f"; head counts on length-{report['n']} sequences" if lti else "")
            + f" at tolerance tau = {tolerance:g} (the least H whose best H-head relative error is <= tau)")
    lines = [head]
    inp = report.get("input") or {}
    if any("numerical_interaction_rank" in x or any("numerical_interaction_rank" in p for p in x.get("parts", []))
           for x in layers):
        lines.append("input of the selective and linear-recurrence layers: " + terminal_safe(
            f"tokens {inp.get('tokens')} through {inp.get('through')}" if inp.get("kind") == "tokens" else
            inp.get("note", "")))
    block = object()
    for layer in layers:
        if layer.get("block") != block and layer.get("block") is not None:
            block = layer.get("block")
        lines.extend(_layer_lines(layer, tolerance))
    hw = report.get("highway") or {}
    crossings = [(r["name"], r["crossover_distance"]) for r in hw.get("layers", []) if r.get("crossover_distance")]
    if hw:
        lines.append(f"highway map (length {hw['n']}): {hw['attention_layers']} layer(s) with attention paths of "
                     f"length 2 at every distance (bound {hw['attention_bound']:.3g} per head)"
                     + ("; crossover distances " + ", ".join(f"{terminal_safe(n)}: {d}" for n, d in crossings[:8])
                        + (" ..." if len(crossings) > 8 else "") if crossings else ""))
    for skipped in report.get("skipped", []):
        lines.append(f"  not read: {terminal_safe(skipped['name'])}: {terminal_safe(skipped['reason'])}")
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
             "class to represent the layer's interaction operator on this input (sum_h alpha^h_ij V_h = W_ij for every "
             "block)"]
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
    lines.append("certified brackets (relative error of the best H-head model with real value maps and coefficients "
                 "depending on i - j only, Eckart-Young, rows weighted by sqrt(n - d)):")
    for e in errs:
        lines.append(f"  H = {e['H']}: e_H in [{_short(e['lower'])}, {_short(e['upper'])}]")
    return lines
