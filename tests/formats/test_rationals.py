from fractions import Fraction

import numpy as np
import pytest
import sympy

from symssm.errors import FloatInExactPathError, LimitError, ParseError
from symssm.formats.rationals import format_rational, int_from_digits, int_to_text, parse_rational, to_fraction


@pytest.mark.parametrize("text, value", [
    ("0", Fraction(0)), ("-12", Fraction(-12)), ("+7", Fraction(7)),
    ("3/4", Fraction(3, 4)), ("-10/6", Fraction(-5, 3)),
    ("0.125", Fraction(1, 8)), ("-1.5e-3", Fraction(-3, 2000)), ("2E+4", Fraction(20000)),
    (".5", Fraction(1, 2)), ("5.", Fraction(5)), ("0.1", Fraction(1, 10)),
])
def test_parse_accepts_the_grammar(text, value):
    assert parse_rational(text) == value


@pytest.mark.parametrize("text", [
    "", " 1", "1 ", "1/0", "1/-2", "0x10", "1_000", "nan", "inf", "1e", "e5", ".", "--1", "1/2/3",
    "__import__('os')", "1+1", "٣", "1.5/2", "½",
])
def test_parse_refuses_everything_else(text):
    with pytest.raises(ParseError):
        parse_rational(text)


def test_limits_are_enforced_with_clear_errors():
    with pytest.raises(LimitError, match="digits"):
        parse_rational("1" * 10_001)
    with pytest.raises(LimitError, match="exponent"):
        parse_rational("1e10001")
    with pytest.raises(LimitError, match="exponent"):
        parse_rational("1e99999999999999999999")


def test_big_numbers_beyond_python_int_str_limit():
    text = "7" * 9000
    assert parse_rational(text) == int_from_digits(text)
    assert int_to_text(int_from_digits(text)) == text
    assert format_rational(Fraction(10**6000, 3)) == "1" + "0" * 6000 + "/3"


@pytest.mark.parametrize("value, expected", [
    (3, Fraction(3)), (np.int64(-4), Fraction(-4)), (Fraction(1, 3), Fraction(1, 3)),
    (sympy.Rational(2, 7), Fraction(2, 7)), (sympy.Integer(5), Fraction(5)), ("1/2", Fraction(1, 2)),
])
def test_to_fraction_types(value, expected):
    assert to_fraction(value) == expected


@pytest.mark.parametrize("value", [0.5, np.float64(0.25), np.float32(1.0)])
def test_floats_are_refused_with_a_pointer_to_the_numeric_path(value):
    with pytest.raises(FloatInExactPathError, match="numeric"):
        to_fraction(value)


@pytest.mark.parametrize("value", [1j, np.complex128(0.5 + 1j), "1j", "1/2+3/4j"])
def test_python_complex_numbers_are_refused_with_the_exact_spelling(value):
    with pytest.raises((FloatInExactPathError, ParseError), match=r"e\.g\. '1i' or '1/2\+3/4i'"):
        to_fraction(value)


def test_booleans_and_objects_are_refused():
    with pytest.raises(ParseError, match="boolean"):
        to_fraction(True)
    with pytest.raises(ParseError, match="unsupported type"):
        to_fraction(object())


def test_format_is_canonical():
    assert format_rational(Fraction(-4, 2)) == "-2"
    assert format_rational(Fraction(6, -4)) == "-3/2"



# ---------------------------------------------------------------- the tolerance, read once at the boundary

@pytest.mark.parametrize("value, exact", [("1e-3", Fraction(1, 1000)), ("0.001", Fraction(1, 1000)),
                                          ("1/1000", Fraction(1, 1000)), (" 2.5E-1 ", Fraction(1, 4)),
                                          (Fraction(1, 3), Fraction(1, 3)), (0.001, Fraction(1, 1000)),
                                          (np.float64(0.25), Fraction(1, 4)), ("1e-300", Fraction(1, 10 ** 300))])
def test_a_tolerance_is_read_exactly(value, exact):
    from symssm.formats.rationals import Tolerance, parse_tolerance

    tolerance = parse_tolerance(value)
    assert isinstance(tolerance, Tolerance) and tolerance == exact and float(tolerance) == float(exact)
    assert parse_tolerance(tolerance) is tolerance  # read once: a Tolerance is not read again


@pytest.mark.parametrize("value, message", [
    ("abc", "the tolerance must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got 'abc'"),
    ("-1e-3", "the tolerance must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got '-1e-3'"),
    ("1/0", "the tolerance must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got '1/0'"),
    (True, "the tolerance must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got 'True'"),
    (float("nan"), "the tolerance must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got 'nan'"),
    ("2", "the tolerance must be a number strictly between 0 and 1, got '2'"),
    (0, "the tolerance must be a number strictly between 0 and 1, got '0'"),
    (Fraction(1), "the tolerance must be a number strictly between 0 and 1, got '1'"),
    ("1e-999", "the tolerance must be a number strictly between 0 and 1, got '1e-999'"),  # no float64 above 0
])
def test_one_message_for_each_bad_tolerance(value, message):
    from symssm.errors import InputError
    from symssm.formats.rationals import parse_tolerance

    with pytest.raises(InputError) as exc:
        parse_tolerance(value)
    assert str(exc.value) == message


def test_exact_code_refuses_a_binary_float_tolerance():
    from symssm import ssm
    from symssm.certificate.approximate import approximate_data
    from symssm.exact.approximate import error_brackets
    from symssm.exact.trained import trained_brackets
    from symssm.formats.rationals import parse_tolerance

    s = ssm([["1/2"]], [[1]], [[1]])
    for call in (lambda: error_brackets(s, 8, 0.001), lambda: approximate_data(s, 8, 0.001),
                 lambda: trained_brackets(None, 8, 0.001), lambda: parse_tolerance(0.001, floats=False)):
        with pytest.raises(FloatInExactPathError, match=r"is a binary float \(0.001\)"):
            call()
    assert error_brackets(s, 8, "1/1000")["head_count"] == 1
    assert error_brackets(s, 8, Fraction(1, 1000)) == error_brackets(s, 8, parse_tolerance(0.001))
