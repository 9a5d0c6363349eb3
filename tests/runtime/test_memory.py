"""Warm memory (tfmini/runtime/memory.py): the allocator is set once, and can be left off."""

from __future__ import annotations

import subprocess
import sys

import tfmini as tm
from tfmini.runtime import memory


def test_set_once_when_a_session_starts():
    tm.Session(graph=tm.Graph()).close()
    assert memory._state["done"]
    assert memory.keep_memory_warm() is memory._state["active"]


def _active_in_fresh_process(env_value):
    code = ("import tfmini as tm; from tfmini.runtime import memory; "
            "tm.Session(graph=tm.Graph()).close(); print(memory._state['active'])")
    env = {"PATH": "/usr/bin:/bin"}
    if env_value is not None:
        env["TFMINI_WARM_MEMORY"] = env_value
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    return out.stdout.strip()


def test_environment_switch_leaves_the_allocator_alone():
    assert _active_in_fresh_process("0") == "False"
    assert _active_in_fresh_process(None) in ("True", "False")  # False off glibc
