"""Computation graphs of the two layers, and the lengths of their shortest paths.

For the unrolled SSM the shortest path ``x_j -> h_j -> ... -> h_i -> y_i`` has ``i - j + 2``
edges (and ``x_i -> y_i`` has 1 with a feed-through D, else 2: pass ``feedthrough=system.has_D``,
as the gradient certificate does; the default is a system without D); for the attention layer
``x_j -> v_j -> y_i`` has 2 whatever the distance (1 for ``i = j``, the residual edge).

The certificate records these lengths from the closed forms above.  The graphs themselves are
networkx DAGs (:func:`ssm_graph`, :func:`attention_graph`) for readers who want to draw them,
count paths, or change the architecture and measure again; a test checks the closed forms
against networkx's breadth-first search, and the checker re-derives them with its own BFS.

Examples
--------
>>> ssm_path_lengths(6)                       # no D: i - j + 2 at every distance
[2, 3, 4, 5, 6, 7]
>>> ssm_path_lengths(6, feedthrough=True)     # with D, x_i -> y_i directly
[1, 3, 4, 5, 6, 7]
>>> attention_path_lengths(6)
[1, 2, 2, 2, 2, 2]
>>> graph_path_lengths(ssm_graph(6)) == ssm_path_lengths(6)
True
"""

__all__ = ["ssm_graph", "attention_graph", "graph_path_lengths", "ssm_path_lengths", "attention_path_lengths"]


def ssm_graph(n, *, feedthrough=False):
    """networkx DAG of the unrolled SSM on n tokens (x_t, h_t, y_t nodes, 1-based).

    ``feedthrough=True`` adds the edge ``x_t -> y_t`` of a nonzero D (``system.has_D``).
    """
    import networkx as nx

    G = nx.DiGraph()
    for t in range(1, n + 1):
        G.add_edge(("x", t), ("h", t))
        G.add_edge(("h", t), ("y", t))
        if feedthrough:
            G.add_edge(("x", t), ("y", t))
        if t > 1:
            G.add_edge(("h", t - 1), ("h", t))
    return G


def attention_graph(n):
    """networkx DAG of one causal attention layer: x -> q, k, v; (q_i, k_j) -> s_ij -> a_i; (a_i, v_j) -> y_i."""
    import networkx as nx

    G = nx.DiGraph()
    for t in range(1, n + 1):
        for part in ("q", "k", "v"):
            G.add_edge(("x", t), (part, t))
    for i in range(1, n + 1):
        G.add_edge(("x", i), ("y", i))  # residual path for i = j
        for j in range(1, i + 1):
            G.add_edge(("q", i), ("s", i, j))
            G.add_edge(("k", j), ("s", i, j))
            G.add_edge(("s", i, j), ("a", i))
            G.add_edge(("v", j), ("y", i))
        G.add_edge(("a", i), ("y", i))
    return G


def graph_path_lengths(G):
    """Shortest path lengths ``x_1 -> y_(1+delta)`` in a graph built by the functions above."""
    import networkx as nx

    n = sum(1 for node in G if node[0] == "y")
    return [nx.shortest_path_length(G, ("x", 1), ("y", 1 + d)) for d in range(n)]


def ssm_path_lengths(n, *, feedthrough=False):
    """Shortest path lengths x_1 -> y_{1+delta} for delta = 0..n-1 in the SSM graph (closed form)."""
    return [(1 if feedthrough else 2) if d == 0 else d + 2 for d in range(n)]


def attention_path_lengths(n):
    """Shortest path lengths x_1 -> y_{1+delta} for delta = 0..n-1 in the attention graph (closed form)."""
    return [1 if d == 0 else 2 for d in range(n)]
