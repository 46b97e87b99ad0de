"""The certificate object: a canonical JSON document with helpers around it.

A certificate is plain data (see docs/certificate-format.md); this class only
serialises it deterministically, writes it atomically, checks it with the
independent checker and renders it in Jupyter.

Examples
--------
>>> from symssm import ssm, certify
>>> cert = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 8)
>>> cert["head_count"], cert.check().verified
(2, True)
"""

from .jsonio import atomic_write, dumps_canonical

__all__ = ["Certificate", "FORMAT", "VERSION"]

FORMAT = "symssm-certificate"
VERSION = 1


class Certificate:
    """A certificate document (a read-only mapping view of its JSON data)."""

    def __init__(self, data):
        self._data = data

    @property
    def data(self):
        """The JSON data (do not modify: the certificate would no longer verify)."""
        return self._data

    @property
    def kind(self):
        return self._data["kind"]

    def __getitem__(self, key):
        return self._data[key]

    def __contains__(self, key):
        return key in self._data

    def to_json(self):
        """Canonical JSON text (sorted keys, two-space indent, final newline)."""
        return dumps_canonical(self._data, indent=2)

    def save(self, path):
        """Write the JSON atomically (temporary file, then rename)."""
        atomic_write(path, self.to_json())

    def check(self, *, spec=None):
        """Re-verify with the independent checker; returns its result object."""
        from .checker import check_data

        return check_data(self._data, spec=spec)

    def to_latex(self, **options):
        """LaTeX fragment proving the claim (see :func:`symssm.latex.render`)."""
        from .latex import render

        return render(self._data, **options)

    def _repr_markdown_(self):
        from .latex import render_markdown

        return render_markdown(self._data)

    def __repr__(self):
        d = self._data
        if d["kind"] == "head-count":
            return f"<Certificate head-count k({d['n']}) = {d['head_count']} for {d['system']['name'] or 'an SSM'}>"
        return f"<Certificate {d['kind']} for {d['system']['name'] or 'an SSM'}>"

    def __eq__(self, other):
        return isinstance(other, Certificate) and other._data == self._data

    __hash__ = None
