"""Users file, bcrypt login check, page roles and session ownership."""

from __future__ import annotations

import json

import pytest

from vignette_lab.app.auth import (
    LOCAL_USER,
    User,
    add_user,
    check_password,
    hash_password,
    load_users,
    require_page,
    require_session_access,
)
from vignette_lab.errors import InputError, PermissionDenied


def test_hash_and_check_password():
    h = hash_password("비밀번호1", rounds=4)
    assert h.startswith("$2") and "비밀번호1" not in h
    assert check_password("비밀번호1", h)
    assert not check_password("틀림", h)
    assert not check_password("x", "not-a-hash")


def test_add_user_writes_only_hashes_and_round_trips(tmp_path):
    path = tmp_path / "users.json"
    add_user(path, "kim", "pw-kim", roles=["trainee"], cohort="2026-1", rounds=4)
    add_user(path, "prof", "pw-prof", roles=["faculty", "researcher"], rounds=4)
    raw = path.read_text(encoding="utf-8")
    assert "pw-kim" not in raw and "pw-prof" not in raw
    users = load_users(path)
    kim, kim_hash = users["kim"]
    assert kim == User("kim", frozenset({"trainee"}), "2026-1", None)
    assert check_password("pw-kim", kim_hash)
    assert users["prof"][0].is_staff and not kim.is_staff


@pytest.mark.parametrize(("content", "field"), [
    ('{"users": {"a": {"password_hash": "plain", "roles": ["trainee"]}}}', "users.a.password_hash"),
    ('{"users": {"a": {"password_hash": "$2b$04$abc", "roles": ["boss"]}}}', "users.a.roles"),
    ('{"people": {}}', "users"),
    ('{"users": {"a": "x"}}', "users.a"),
])
def test_malformed_users_file_names_file_and_field(tmp_path, content, field):
    path = tmp_path / "users.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_users(path)
    assert str(path) in str(err.value) and f"field '{field}'" in str(err.value)


def test_invalid_json_names_the_line(tmp_path):
    path = tmp_path / "users.json"
    path.write_text('{\n"users": {,\n}', encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2"):
        load_users(path)


def test_add_user_rejects_unknown_roles(tmp_path):
    with pytest.raises(ValueError, match="roles must be drawn from"):
        add_user(tmp_path / "u.json", "x", "pw", roles=["boss"], rounds=4)


def test_page_roles():
    trainee = User("kim", frozenset({"trainee"}))
    faculty = User("prof", frozenset({"faculty"}))
    assert trainee.can_open("session") and not trainee.can_open("review")
    assert not trainee.can_open("agreement") and not trainee.can_open("selfplay")
    assert faculty.can_open("review") and faculty.can_open("agreement")
    assert all(LOCAL_USER.can_open(p) for p in ("session", "selfplay", "review", "agreement"))
    with pytest.raises(PermissionDenied, match="review"):
        require_page(trainee, "review")
    with pytest.raises(ValueError, match="unknown page"):
        trainee.can_open("admin-console")


def test_session_access_is_owner_own_cohort_faculty_or_researcher():
    kim, lee = User("kim"), User("lee")
    require_session_access(kim, "kim", "s1")
    with pytest.raises(PermissionDenied, match="another learner"):
        require_session_access(lee, "kim", "s1")
    require_session_access(User("prof", frozenset({"faculty"}), "c1"), "kim", "s1", session_cohort="c1")
    with pytest.raises(PermissionDenied, match="another cohort"):
        require_session_access(User("prof", frozenset({"faculty"}), "c1"), "kim", "s1", session_cohort="c2")
    require_session_access(User("r", frozenset({"researcher"})), "kim", "s1", session_cohort="c2")


def test_users_file_is_valid_json_after_two_writes(tmp_path):
    path = tmp_path / "users.json"
    add_user(path, "a", "pw", rounds=4)
    add_user(path, "a", "pw2", roles=["researcher"], rounds=4)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data["users"]) == ["a"] and data["users"]["a"]["roles"] == ["researcher"]


def test_a_page_the_user_may_not_open_is_refused_inside_the_normal_frame():
    """Header, navigation and a way back around the refusal, naming the user by display name."""
    from types import SimpleNamespace

    from vignette_lab.app.serve import _page

    trainee = User("kim", frozenset({"trainee"}), display_name="김하늘")
    ctx = SimpleNamespace(users=None, user=lambda name: trainee)
    built = []
    tmpl = _page(ctx, "review", "주석 검토", lambda user: built.append(user))()
    assert built == []  # the page itself is never built for this user
    main = " ".join(str(getattr(o, "object", "")) for col in tmpl.main for o in getattr(col, "objects", [col]))
    assert "김하늘 님" in main and "열 수 없습니다" in main and "'kim'" not in main
    assert "vl-denied-back" in main and 'data-page="session"' in main and 'data-page="review"' not in main
    sidebar = " ".join(str(o.object) for o in tmpl.sidebar)
    header = " ".join(str(o.object) for o in tmpl.header)
    assert 'class="vl-nav"' in sidebar and "김하늘" in header
