"""``auditpacks judge-check`` says how far it is while the judge works: progress lines on stderr, as ``run`` prints,
and the heartbeat while a judge call waits."""

from __future__ import annotations

import re
import time

from auditpacks.runner.cli.main import main
from auditpacks.runner.display import heartbeat
from auditpacks.runner.models import waits
from tests.support.fake_openai import FakeOpenAI
from tests.support.paths import FIXTURES
from tests.support.scripted_judge import answer


def test_judge_check_prints_progress_lines_up_to_every_item(tmp_path, capsys):
    pack = tmp_path / "jacite.json"
    assert main(["build", "jacite", "--source", str(FIXTURES / "jacite"), "--out", str(pack)]) == 0
    capsys.readouterr()
    with FakeOpenAI(answer=answer) as server:
        main(["judge-check", "--pack", str(pack), "--judge-model", "judge-correct", "--judge-base-url",
              server.base_url, "--out", str(tmp_path / "q")])
    err = capsys.readouterr().err
    lines = re.findall(r"^\[(\d+)/(\d+)\] .* errors .*$", err, flags=re.M)
    assert lines, err
    done, total = lines[-1]
    assert done == total and int(total) > 1       # the last line counts every calibration item
    assert int(lines[0][0]) < int(total)          # and lines came before the end


def test_the_heartbeat_says_what_a_waiting_judge_call_waits_for(monkeypatch):
    from auditpacks.runner.display.progress import ProgressPrinter
    import io

    stream = io.StringIO()
    waits.note(1, 1, 3, time.monotonic() - 40, 600)
    try:
        with ProgressPrinter(5, stream=stream, what="item", label="judge-check", heartbeat_s=0.2):
            time.sleep(1.5)
    finally:
        waits.clear(1)
    assert re.search(r"^\[0/5\] waiting 4\d s · attempt 1 of 3 · this attempt times out in \d+ s$", stream.getvalue(),
                     flags=re.M), stream.getvalue()
    assert heartbeat.EVERY_S == 30.0   # the same interval as run's
