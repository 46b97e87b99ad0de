"""Computation graphs (networkx): path lengths from x_j to y_i.

For the unrolled SSM the shortest path ``x_j -> h_j -> ... -> h_i -> y_i`` has ``i - j + 2``
edges; for the attention layer ``x_j -> v_j -> y_i`` has 2, whatever the distance.

Examples
--------
>>> ssm_path_lengths(6)
[1, 3, 4, 5, 6, 7]
>>> attention_path_lengths(6)
[1, 2, 2, 2, 2, 2]
"""

import networkx as nx

__all__ = ["ssm_graph", "attention_graph", "ssm_path_lengths", "attention_path_lengths"]


def ssm_graph(n, *, feedthrough=True):
    """DAG of the unrolled SSM on n tokens (x_t, h_t, y_t nodes, 1-based)."""
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
    """DAG of one causal attention layer: x -> q, k, v; (q_i, k_j) -> s_ij -> a_i; (a_i, v_j) -> y_i."""
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


def ssm_path_lengths(n, *, feedthrough=True):
    """Shortest path lengths x_1 -> y_{1+delta} for delta = 0..n-1 in the SSM graph."""
    G = ssm_graph(n, feedthrough=feedthrough)
    return [nx.shortest_path_length(G, ("x", 1), ("y", 1 + d)) for d in range(n)]


def attention_path_lengths(n):
    """Shortest path lengths x_1 -> y_{1+delta} for delta = 0..n-1 in the attention graph."""
    G = attention_graph(n)
    return [nx.shortest_path_length(G, ("x", 1), ("y", 1 + d)) for d in range(n)]
