"""Thread counts for python-flint (generator and checker): every CPU, or SYMSSM_THREADS."""


def test_threads_follow_the_cap(monkeypatch):
    import os

    import flint

    from symssm.checker import accel
    from symssm.formats.limits import flint_threads, threads

    available = len(os.sched_getaffinity(0))
    for module in (threads, accel.threads):
        monkeypatch.setenv("SYMSSM_THREADS", "1")
        assert module() == 1
        for junk in ("", "0", "-2", "two", "1.5"):
            monkeypatch.setenv("SYMSSM_THREADS", junk)
            assert module() == available
    monkeypatch.setenv("SYMSSM_THREADS", "1")
    before = flint.ctx.threads
    for manager in (flint_threads, accel.flint_threads):
        with manager(flint):
            assert flint.ctx.threads == 1
        assert flint.ctx.threads == before
    with accel.flint_threads(None):  # the checker without python-flint
        pass
