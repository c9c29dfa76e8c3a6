"""Serving: route factories, per-session fresh pages, role checks, login handler, CLI."""

from __future__ import annotations

import panel as pn
import pytest
from click.testing import CliRunner

from vignette_lab.app.auth import add_user
from vignette_lab.cli.app import serve as serve_command, users as users_command
from vignette_lab.app.serve import AppContext, build_app, make_auth_provider


@pytest.fixture
def ctx(duck_db, tmp_path):
    return AppContext(db=duck_db, reports_dir=tmp_path / "reports", token_delay=0)


def test_routes_and_fresh_state_per_session(ctx):
    routes = build_app(ctx=ctx)
    assert set(routes) == {"/", "session", "selfplay", "review", "agreement"}
    first, second = routes["session"](), routes["session"]()
    assert isinstance(first, pn.template.BootstrapTemplate) and first is not second
    pages = [o for o in first.main.objects]
    assert pages and pages[0] is not [o for o in second.main.objects][0]
    for name in ("/", "selfplay", "review", "agreement"):
        assert isinstance(routes[name](), pn.template.BootstrapTemplate)


def test_users_file_mode_denies_unknown_and_wrong_role(duck_db, tmp_path, monkeypatch):
    users = tmp_path / "users.json"
    add_user(users, "kim", "pw", roles=["trainee"], rounds=4)
    add_user(users, "prof", "pw", roles=["faculty"], rounds=4)
    ctx = AppContext(db=duck_db, users_file=users, reports_dir=tmp_path / "r", token_delay=0)
    routes = build_app(ctx=ctx)
    state_user = {"name": None}
    monkeypatch.setattr(type(pn.state), "user", property(lambda self: state_user["name"]))
    assert "로그인이 필요합니다" in routes["session"]().object
    state_user["name"] = "kim"
    denied = routes["review"]()  # inside the normal frame: header, navigation and a way back
    assert isinstance(denied, pn.template.BootstrapTemplate)
    main = " ".join(str(getattr(o, "object", "")) for col in denied.main for o in getattr(col, "objects", [col]))
    assert "열 수 없습니다" in main and "kim 님" in main and "vl-denied-back" in main
    assert isinstance(routes["session"](), pn.template.BootstrapTemplate)
    state_user["name"] = "prof"
    assert isinstance(routes["agreement"](), pn.template.BootstrapTemplate)


def test_login_handler_checks_bcrypt(tmp_path):
    from vignette_lab.app.auth import load_users

    users = tmp_path / "users.json"
    add_user(users, "kim", "정답", rounds=4)
    provider = make_auth_provider(load_users(users))
    handler_cls = provider.login_handler
    handler = handler_cls.__new__(handler_cls)  # _validate needs no request state
    assert handler._validate("kim", "정답") is True
    assert handler._validate("kim", "오답") is False
    assert handler._validate("nobody", "정답") is False
    rendered = handler_cls._login_template.render(login_endpoint="/login", errormessage="")
    assert "http" not in rendered.replace("http-equiv", "")  # no external asset on the login page


def test_cli_serve_refuses_public_address_without_users():
    result = CliRunner().invoke(serve_command, ["--address", "0.0.0.0"], obj={"db_url": ":memory:"})
    assert result.exit_code != 0 and "without --users" in result.output


def test_cli_users_add(tmp_path):
    path = tmp_path / "users.json"
    result = CliRunner().invoke(users_command, ["add", str(path), "prof", "--role", "faculty",
                                                "--password", "long-secret-42"])
    assert result.exit_code == 0, result.output
    assert "prof (faculty)" in result.output and "long-secret-42" not in path.read_text(encoding="utf-8")
    bad = CliRunner().invoke(users_command, ["add", str(path), "x", "--role", "boss", "--password", "pw"])
    assert bad.exit_code != 0


def test_every_cli_command_is_documented():
    for cmd in (serve_command, users_command, *users_command.commands.values()):
        assert cmd.help and "Example:" in cmd.help
        for opt in cmd.params:
            if hasattr(opt, "help") and opt.param_type_name == "option":
                assert opt.help, (cmd.name, opt.name)
