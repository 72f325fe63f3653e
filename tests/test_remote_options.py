"""The control service's command-line options (for ``footfall live``)."""

import argparse

import pytest

from footfall.commands._control import add_control_arguments, service_from_args
from footfall.remote import ControlServiceError


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_control_arguments(parser)
    return parser.parse_args(list(argv))


def test_defaults_are_loopback_on_64212() -> None:
    service = service_from_args(parse())
    assert (service.host, service.port, service.extra_origins) == ("127.0.0.1", 64212, ())
    assert service.url == "ws://127.0.0.1:64212/retargeting"
    assert service.panel_url == "http://127.0.0.1:64212/"


def test_options_reach_the_service() -> None:
    service = service_from_args(parse("--control-port", "0", "--control-host", "0.0.0.0",
                                      "--control-origin", "http://10.0.0.2:64212",
                                      "--control-origin", "http://pad.local:64212/"))
    assert (service.host, service.port) == ("0.0.0.0", 0)
    assert service.extra_origins == ("http://10.0.0.2:64212", "http://pad.local:64212")
    assert service_from_args(parse("--no-control")) is None


@pytest.mark.parametrize("port", ["x", "-1", "70000"])
def test_bad_port_is_refused(port) -> None:
    with pytest.raises(argparse.ArgumentError, match="port"):
        parse("--control-port", port)


def test_a_taken_port_is_a_clear_error() -> None:
    first = service_from_args(parse("--control-port", "0")).start()
    try:
        second = service_from_args(parse("--control-port", str(first.port)))
        with pytest.raises(ControlServiceError, match=f"127.0.0.1:{first.port}"):
            second.start()
    finally:
        first.stop()


def test_stop_then_start_again_serves_again() -> None:
    from websockets.sync.client import connect

    service = service_from_args(parse("--control-port", "0")).start()
    service.stop()
    service.start()
    try:
        with connect(service.url, open_timeout=10) as ws:
            ws.send("{")
            assert '"field": null' in ws.recv(timeout=10)
    finally:
        service.stop()
