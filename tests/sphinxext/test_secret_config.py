"""``trending_webhook`` is a secret: the site build forgets it and never prints it.

``sphinx-build -b html`` keeps its doctrees, with the pickled
configuration, inside the output folder people publish.
"""

from __future__ import annotations

from pathlib import Path

from tests.sphinxext.test_config_types import build

SECRET = "T0SECRET/B0SECRET/xoxSECRETTOKEN"


def test_the_published_folder_holds_no_webhook_url(tmp_path: Path) -> None:
    code, warnings = build(
        tmp_path, f"trending_webhook = 'https://hooks.example.org/services/{SECRET}'\n"
    )
    assert code == 0 and warnings == ""
    written = [path for path in (tmp_path / "out").rglob("*") if path.is_file()]
    assert any(path.suffix == ".pickle" for path in written)
    assert [path for path in written if SECRET.encode() in path.read_bytes()] == []


def test_a_malformed_webhook_url_warns_without_repeating_it(tmp_path: Path) -> None:
    _code, warnings = build(tmp_path, f"trending_webhook = 'hooks.example.org/{SECRET}'\n")
    assert "trending_webhook" in warnings and "expected an http:// or https:// URL" in warnings
    assert "SECRET" not in warnings
