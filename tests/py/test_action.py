"""The CI action's body (.ci/action.sh, run by action.yml) and the pre-commit hooks
(.pre-commit-hooks.yaml) on samples: a model with drift fails, one without passes."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import irc_ov

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "ir-samples" / "models"
BIN_DIR = Path(sys.executable).parent


def env_with(**kw):
    env = dict(os.environ)
    env["PATH"] = f"{BIN_DIR}{os.pathsep}{env.get('PATH', '')}"  # the installed irc
    env.pop("GITHUB_OUTPUT", None)
    env.update({k: str(v) for k, v in kw.items()})
    return env


@pytest.fixture
def models(tmp_path):
    """good.xml (normal form, no drift), bad.xml (a recorded output dim changed), pom.xml."""
    d = tmp_path / "models"
    d.mkdir()
    irc_ov.normalize(SAMPLES / "silero_seq.xml", d / "good.xml")
    text = (d / "good.xml").read_text()
    out = text.rindex("<output>")
    at = text.index("<dim>", out)
    end = text.index("</dim>", at)
    (d / "bad.xml").write_text(text[:at] + "<dim>12345" + text[end:])
    shutil.copy(d / "good.bin", d / "bad.bin")
    (d / "pom.xml").write_text('<?xml version="1.0"?>\n<project/>\n')
    return d


def action(cwd, **inputs):
    gh_out = cwd / "gh_output"
    gh_out.write_text("")
    env = env_with(GITHUB_OUTPUT=gh_out, **{f"IRC_ACTION_{k.upper()}": v for k, v in inputs.items()})
    p = subprocess.run(["bash", str(REPO / ".ci" / "action.sh")], cwd=cwd, env=env, capture_output=True, text=True)
    outputs = dict(line.split("=", 1) for line in gh_out.read_text().splitlines() if "=" in line)
    return p, outputs


def test_action_check(models, tmp_path):
    p, o = action(tmp_path, command="check", models="models/good.xml models/pom.xml")
    assert p.returncode == 0, p.stderr
    assert o == {"report": "irc-report.json", "exit-code": "0"}
    rep = json.loads((tmp_path / "irc-report.json").read_text())
    assert [r["exit_code"] for r in rep] == [0] and rep[0]["report"]["ok"] is True
    p, o = action(tmp_path, command="check", models="models/**/*.xml", report="out/r.json")
    assert p.returncode == 1
    assert o["exit-code"] == "1"
    rep = json.loads((tmp_path / "out" / "r.json").read_text())
    bad = [r for r in rep if r["file"].endswith("bad.xml")][0]
    assert bad["report"]["diffs"][0]["recorded"].find("12345") >= 0
    assert "12345" in p.stderr  # the report is shown in the log when the step fails


def test_action_normalized_fold_diff_stats(models, tmp_path):
    p, o = action(tmp_path, command="normalized", models="models/good.xml")
    assert p.returncode == 0, p.stderr
    p, o = action(tmp_path, command="normalized", models=str(SAMPLES / "silero_seq.xml"))
    assert p.returncode == 1
    p, o = action(
        tmp_path,
        command="fold",
        models=str(SAMPLES / "silero_seq.xml"),
        inputs="input[4,576]\n",
        output_dir="folded",
    )
    assert p.returncode == 0, p.stderr
    rep = json.loads((tmp_path / "irc-report.json").read_text())
    want = irc_ov.fold(SAMPLES / "silero_seq.xml", tmp_path / "api.xml", inputs=["input[4,576]"])
    assert rep[0]["report"] == want and rep[0]["output"] == "folded/silero_seq.xml"
    assert (tmp_path / "folded" / "silero_seq.xml").read_bytes() == (tmp_path / "api.xml").read_bytes()
    p, o = action(tmp_path, command="diff", models=str(SAMPLES / "silero_seq.xml"), against="folded/silero_seq.xml")
    assert p.returncode == 0 and o["exit-code"] == "1", p.stderr
    assert json.loads((tmp_path / "irc-report.json").read_text())["equal"] is False
    p, o = action(
        tmp_path,
        command="diff",
        models=str(SAMPLES / "silero_seq.xml"),
        against="folded/silero_seq.xml",
        fail_on_diff="true",
    )
    assert p.returncode == 1
    p, o = action(tmp_path, command="stats", models="models/good.xml")
    assert p.returncode == 0
    assert json.loads((tmp_path / "irc-report.json").read_text())[0]["report"]["layers"] == 102
    p, o = action(tmp_path, command="check", models="models/none*.xml")
    assert p.returncode == 2 and "no file matches" in p.stderr


@pytest.mark.skipif(shutil.which("pre-commit", path=str(BIN_DIR)) is None, reason="pre-commit is not installed")
def test_pre_commit_hooks(models, tmp_path):
    """The hooks as pre-commit runs them (try-repo installs this repository in its own
    environment): drift fails irc-check, a file not in normal form fails irc-normalized, other
    XML files are left alone."""
    work = tmp_path / "work"
    work.mkdir()
    for f in ("good.xml", "good.bin", "bad.xml", "bad.bin", "pom.xml"):
        shutil.copy(models / f, work / f)
    env = env_with(PRE_COMMIT_HOME=tmp_path / "pre-commit-home")
    # pre-commit builds the package again in its own environment: share compiled crates with
    # the build `pip install .` made (only irc itself, at a new path, is compiled again).
    if (REPO / "python" / "target").is_dir():
        env.setdefault("CARGO_TARGET_DIR", str(REPO / "python" / "target"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git + ["init", "-q"], cwd=work, check=True)
    subprocess.run(git + ["add", "."], cwd=work, check=True)

    def hook(hook_id, *files):
        return subprocess.run(
            [str(BIN_DIR / "pre-commit"), "try-repo", str(REPO), hook_id, "--files", *files],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    p = hook("irc-check", "good.xml", "pom.xml")
    assert p.returncode == 0, p.stdout + p.stderr
    p = hook("irc-check", "good.xml", "bad.xml", "pom.xml")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "12345" in p.stdout
    p = hook("irc-normalized", "good.xml", "pom.xml")
    assert p.returncode == 0, p.stdout + p.stderr
    shutil.copy(SAMPLES / "silero_seq.xml", work / "conv.xml")
    shutil.copy(SAMPLES / "silero_seq.bin", work / "conv.bin")
    subprocess.run(git + ["add", "."], cwd=work, check=True)
    p = hook("irc-normalized", "good.xml", "conv.xml")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "conv.xml: not in normal form" in p.stdout
