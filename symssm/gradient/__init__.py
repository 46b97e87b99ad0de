"""Stage 3, gradient: the mathematics of the Gradient Highway result.

Decay of a stable SSM's lags with an exact Lyapunov witness (:mod:`.decay`), the single-head
softmax attention highway (:mod:`.attention`), the crossover distance (:mod:`.crossover`) and
the computation graphs (:mod:`.graph`).  Certificates are built in
:mod:`symssm.certificate.gradient`, typeset in :mod:`symssm.render.gradient`.
"""
