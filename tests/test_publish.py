"""`make publish`: the built site becomes the whole content of a gh-pages branch on the remote."""

from __future__ import annotations

import subprocess

import pytest

from mmlu_audit.book import publish
from mmlu_audit.core.errors import DataError

IDENTITY = {"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org",
            "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.org"}


def git(*args, cwd) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A checkout with one commit on main and a local bare repository as its origin."""
    for name, value in IDENTITY.items():
        monkeypatch.setenv(name, value)
    bare, work = tmp_path / "origin.git", tmp_path / "work"
    git("init", "--bare", "-q", str(bare), cwd=tmp_path)
    git("init", "-q", "-b", "main", str(work), cwd=tmp_path)
    (work / "README.md").write_text("the project\n")
    git("add", "README.md", cwd=work)
    git("commit", "-q", "-m", "start", cwd=work)
    git("remote", "add", "origin", str(bare), cwd=work)
    return work, bare


def fake_site(folder, text):
    (folder / "_static").mkdir(parents=True)
    (folder / "index.html").write_text(f"<html>{text}</html>")
    (folder / "_static" / "style.css").write_text("body {}")
    return folder


def test_publish_pushes_the_site_as_the_branch(checkout, tmp_path):
    work, bare = checkout
    publish.publish(fake_site(tmp_path / "html", "first"), repo=work, message="Publish v1")
    assert sorted(git("ls-tree", "-r", "--name-only", "gh-pages", cwd=bare).split()) == [
        ".nojekyll", "_static/style.css", "index.html"]
    assert git("show", "gh-pages:index.html", cwd=bare) == "<html>first</html>"
    assert git("log", "-1", "--format=%s", "gh-pages", cwd=bare).strip() == "Publish v1"
    assert git("status", "--porcelain", cwd=work) == ""  # the checkout's tree is untouched
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=work).strip() == "main"


def test_republishing_replaces_the_content_on_top_of_history(checkout, tmp_path):
    work, bare = checkout
    publish.publish(fake_site(tmp_path / "one", "first"), repo=work)
    second = tmp_path / "two"
    second.mkdir()
    (second / "index.html").write_text("<html>second</html>")
    publish.publish(second, repo=work)
    assert sorted(git("ls-tree", "-r", "--name-only", "gh-pages", cwd=bare).split()) == [
        ".nojekyll", "index.html"]  # the old _static is gone
    assert git("rev-list", "--count", "gh-pages", cwd=bare).strip() == "2"


def test_an_unbuilt_site_is_refused_in_one_line(checkout, tmp_path, capsys):
    work, bare = checkout
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="holds no index.html: build the site first"):
        publish.publish(tmp_path / "empty", repo=work)
    assert publish.main(["--html", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert "gh-pages" not in git("branch", "--list", cwd=bare)


def test_a_failed_push_quotes_git(checkout, tmp_path):
    work, _ = checkout
    with pytest.raises(DataError, match="ghp-import: failed"):
        publish.publish(fake_site(tmp_path / "html", "x"), repo=work, remote="nowhere")
