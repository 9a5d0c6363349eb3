"""tm.app.run, tm.flags (absl's rules as TensorFlow 2.21 exposes them), tm.logging and the
tm.compat string helpers. Messages were checked against TensorFlow 2.21's absl flags."""

from __future__ import annotations

import logging

import pytest

import tfmini as tm


@pytest.fixture
def flags():
    """A fresh FlagValues with one flag of each kind."""
    fv = tm.flags.FlagValues()
    tm.flags.DEFINE_integer("n", 3, "an int", flag_values=fv)
    tm.flags.DEFINE_boolean("b", False, "a bool", flag_values=fv)
    tm.flags.DEFINE_list("l", ["a"], "a list", flag_values=fv)
    tm.flags.DEFINE_enum("e", "x", ["x", "y"], "an enum", flag_values=fv)
    tm.flags.DEFINE_multi_string("m", None, "repeatable", flag_values=fv)
    tm.flags.DEFINE_float("fl", 1.0, "a float", flag_values=fv)
    tm.flags.DEFINE_string("s", "hi", "a string", flag_values=fv)
    return fv


def test_parsing_follows_absl(flags):
    rest = flags(["prog", "--n=5", "pos", "--nob", "--l", "p, q", "-m", "u", "--m=v",
                  "--fl", "2.5", "rest", "--", "--s=no"])
    assert rest == ["prog", "pos", "rest", "--s=no"]
    assert (flags.n, flags.b, flags.l, flags.m, flags.fl, flags.e, flags.s) == (
        5, False, ["p", "q"], ["u", "v"], 2.5, "x", "hi")
    flags(["prog", "--b", "--e=y", "--n", "0x10"])
    assert flags.b is True and flags.e == "y" and flags.n == 16
    flags.s = "set"
    assert flags.s == "set" and flags.flag_values_dict()["s"] == "set"


@pytest.mark.parametrize("argv, error, message", [
    (["p", "--zz=1"], tm.flags.UnrecognizedFlagError, "Unknown command line flag 'zz'"),
    (["p", "--n=abc"], tm.flags.IllegalFlagValueError,
     "flag --n=abc: invalid literal for int() with base 10: 'abc'"),
    (["p", "--e=z"], tm.flags.IllegalFlagValueError, "flag --e=z: value should be one of <x|y>"),
    (["p", "--n"], tm.flags.Error, "Missing value for flag --n"),
    (["p", "--nobx"], tm.flags.UnrecognizedFlagError, "Unknown command line flag 'nobx'"),
    (["p", "--b=maybe"], tm.flags.IllegalFlagValueError,
     "flag --b=maybe: ('Non-boolean argument to boolean flag', 'maybe')"),
    (["p", "--non"], tm.flags.UnrecognizedFlagError, "Unknown command line flag 'non'"),
])
def test_bad_command_lines(flags, argv, error, message):
    with pytest.raises(error) as info:
        flags(argv)
    assert str(info.value) == message


def test_known_only_keeps_unknown_flags(flags):
    assert flags(["p", "--zz=1", "--n=2"], known_only=True) == ["p", "--zz=1"]
    assert flags.n == 2


def test_defining_twice_fails(flags):
    with pytest.raises(tm.flags.DuplicateFlagError, match="The flag 'n' is defined twice"):
        tm.flags.DEFINE_integer("n", 1, "again", flag_values=flags)


def test_reading_before_parsing_parses_sys_argv(flags, monkeypatch):
    monkeypatch.setattr("sys.argv", ["prog", "--n=7"])
    assert not flags.is_parsed()
    assert flags.n == 7 and flags.is_parsed()  # TensorFlow's wrapper parses implicitly


def test_bounds():
    fv = tm.flags.FlagValues()
    tm.flags.DEFINE_integer("k", 1, "bounded", lower_bound=0, upper_bound=3, flag_values=fv)
    with pytest.raises(tm.flags.IllegalFlagValueError, match="not less than or equal to 3"):
        fv(["p", "--k=4"])


def test_app_run_parses_calls_main_and_exits(monkeypatch):
    name = "app_run_test_flag"
    if name not in tm.flags.FLAGS:
        tm.flags.DEFINE_integer(name, 1, "for this test")
    seen = {}

    def main(argv):
        seen["argv"] = argv
        seen["value"] = getattr(tm.flags.FLAGS, name)
        return 3

    with pytest.raises(SystemExit) as info:
        tm.app.run(main, argv=["prog", f"--{name}=4", "--unknown=1", "x"])
    assert info.value.code == 3
    assert seen == {"argv": ["prog", "--unknown=1", "x"], "value": 4}
    assert tm.app.flags is tm.flags
    with pytest.raises(SystemExit) as info:
        tm.app.run(main, argv=["prog", f"--{name}=notanint"])
    assert info.value.code == 1


def test_logging_levels_and_helpers(caplog):
    log = tm.logging
    # tf.compat.v1.logging has WARN, not WARNING (tests/goldens/tf_names.json).
    assert (log.DEBUG, log.INFO, log.WARN, log.ERROR, log.FATAL) == (10, 20, 30, 40, 50)
    assert not hasattr(log, "WARNING")
    old = log.get_verbosity()
    try:
        log.set_verbosity(log.INFO)
        assert log.get_verbosity() == log.INFO
        with caplog.at_level(logging.INFO, logger="tfmini"):
            log.info("a %d", 1)
            log.debug("hidden")
            log.vlog(log.WARN, "v")
            for i in range(5):
                log.log_every_n(log.INFO, "every %d", 2, i)
                log.log_first_n(log.INFO, "first %d", 2, i)
        messages = [r.getMessage() for r in caplog.records]
        assert messages == ["a 1", "v", "every 0", "first 0", "first 1", "every 2",
                            "every 4"]
    finally:
        log.set_verbosity(old)


def test_compat_strings():
    c = tm.compat
    assert c.as_bytes("é") == "é".encode() and c.as_bytes(b"x") == b"x"
    assert c.as_text(b"\xc3\xa9") == "é" and c.as_str("s") == "s"
    assert c.as_str_any(b"b") == "b" and c.as_str_any(5) == "5"
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 1"):
        c.as_text(1)
    assert not hasattr(tm, "as_str")  # tm.compat only, as TensorFlow
