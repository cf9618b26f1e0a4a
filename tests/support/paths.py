"""Where the tests find the repository and their fixtures, whatever folder a test file sits in."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
