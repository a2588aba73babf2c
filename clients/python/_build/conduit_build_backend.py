"""A PEP 517 build backend in the standard library only, so that ``pip install --no-build-isolation --no-index``
works on a machine without network and without ``wheel``/``setuptools`` (setuptools before 70.1 needs the
``wheel`` package to build one). It packs ``src/conduit_client`` into a pure-Python wheel (PEP 427) whose metadata
(PEP 621 fields of pyproject.toml: name, version, description, requires-python) it reads from pyproject.toml.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from typing import Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "conduit_client"


def _project() -> Dict[str, str]:
    """The ``key = "value"`` lines of pyproject.toml's [project] table (all this backend needs of TOML)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as handle:
        text = handle.read()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"', table, flags=re.MULTILINE))


def _names() -> Tuple[str, str, str]:
    project = _project()
    name, version = project["name"], project["version"]
    return name, version, f"{name.replace('-', '_')}-{version}"


def _metadata() -> str:
    project = _project()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3.9')}",
        "Classifier: Typing :: Typed",
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + readme


def _sources() -> List[Tuple[str, bytes]]:
    base = os.path.join(ROOT, "src")
    files = []
    for folder, _dirs, names in sorted(os.walk(os.path.join(base, PACKAGE))):
        for file_name in sorted(names):
            if file_name.endswith(".py") or file_name == "py.typed":
                path = os.path.join(folder, file_name)
                with open(path, "rb") as handle:
                    files.append((os.path.relpath(path, base).replace(os.sep, "/"), handle.read()))
    return files


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def _dist_info(dist: str) -> List[Tuple[str, bytes]]:
    wheel = "Wheel-Version: 1.0\nGenerator: conduit_build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return [
        (f"{dist}.dist-info/METADATA", _metadata().encode("utf-8")),
        (f"{dist}.dist-info/WHEEL", wheel.encode("utf-8")),
        (f"{dist}.dist-info/top_level.txt", f"{PACKAGE}\n".encode("utf-8")),
    ]


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    _name, _version, dist = _names()
    for path, data in _dist_info(dist):
        target = os.path.join(metadata_directory, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as handle:
            handle.write(data)
    return f"{dist}.dist-info"


def build_wheel(
    wheel_directory: str, config_settings: Optional[dict] = None, metadata_directory: Optional[str] = None
) -> str:
    _name, _version, dist = _names()
    wheel_name = f"{dist}-py3-none-any.whl"
    entries = _sources() + _dist_info(dist)
    record_path = f"{dist}.dist-info/RECORD"
    record = "\n".join([_record_line(path, data) for path, data in entries] + [f"{record_path},,"]) + "\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries + [(record_path, record.encode("utf-8"))]:
            archive.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return wheel_name


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    _name, _version, dist = _names()
    sdist_name = f"{dist}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, sdist_name), "w:gz") as archive:
        for relative in ["pyproject.toml", "README.md", "_build/conduit_build_backend.py"]:
            archive.add(os.path.join(ROOT, relative), arcname=f"{dist}/{relative}")
        for path, data in _sources():
            info = tarfile.TarInfo(f"{dist}/src/{path}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
        pkg_info = _metadata().encode("utf-8")
        info = tarfile.TarInfo(f"{dist}/PKG-INFO")
        info.size = len(pkg_info)
        archive.addfile(info, io.BytesIO(pkg_info))
    return sdist_name
