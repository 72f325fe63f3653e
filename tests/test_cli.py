"""The ``footfall`` command line: every subcommand is listed and answers --help."""

import subprocess
import sys

import pytest

from footfall.cli import _command_modules, main


def test_help_lists_every_command(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for module in _command_modules():
        assert module.NAME in out


@pytest.mark.parametrize("name", [m.NAME for m in _command_modules()])
def test_each_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as stop:
        main([name, "--help"])
    assert stop.value.code == 0
    assert "usage: footfall " + name in capsys.readouterr().out


def test_console_script_runs_as_module():
    done = subprocess.run([sys.executable, "-m", "footfall.cli", "--version"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "footfall" in done.stdout


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["no-such-command"])
    assert stop.value.code == 2
