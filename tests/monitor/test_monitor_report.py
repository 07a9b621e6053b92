"""`msprobe report MONITOR_OUTPUT_DIR`: one self-contained page drawing each statistic along the
steps per module or parameter, with the anomalies of anomaly.json marked."""
import json
import os
import re
import sys

from conftest import run_python

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_monitor_fixtures import CASES  # noqa: E402
from monitor_checks import run_net, the_rank_dir  # noqa: E402

REPORT = "import sys; from msprobe.cli import main; sys.exit(main())"


def test_report_of_a_monitor_output(tmp_path):
    config, net_args = CASES["all"]
    run_net(tmp_path, config, *net_args)
    out = tmp_path / "page.html"
    r = run_python(REPORT, "report", str(tmp_path / "out"), "-o", str(out))
    assert str(out) in r.stdout
    html = out.read_text()
    assert "<script" not in html
    # One chart per data type and statistic: actv and actv_grad have 12 columns (input and output),
    # the 5 parameter data types 6 each.
    assert html.count("<svg") == 2 * 12 + 5 * 6
    for data_type in ("actv", "actv_grad", "grad_unreduced", "grad_reduced", "exp_avg", "exp_avg_sq", "param"):
        assert f"<h3>{data_type}</h3>" in html
    with open(tmp_path / "out" / "anomaly_detected" / "rank0" / "anomaly.json") as f:
        anomalies = json.load(f)
    # Every anomaly is ringed on the chart of its data type and statistic, at its step.
    assert html.count('class="anomaly"') == len(anomalies) > 0
    assert f"{len(anomalies)} anomalies" in html
    assert "0:block.fc1_0/rank0/output" in html


def test_report_of_one_rank_folder(tmp_path):
    config, net_args = CASES["targets"]
    run_net(tmp_path, config, *net_args)
    out = tmp_path / "page.html"
    run_python(REPORT, "report", the_rank_dir(tmp_path / "out"), "-o", str(out))
    html = out.read_text()
    assert "No anomaly recorded." in html
    assert html.count("<svg") == 2 * 8 + 2 * 4
    assert re.search(r"<title>vp0:block\.fc1_0</title>", html)
