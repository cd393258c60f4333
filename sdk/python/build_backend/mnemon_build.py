"""A PEP 517 build backend for the mnemon client, in the tree.

The package is pure Python with no dependencies, so building it needs no
build tool from an index: `pip install ./sdk/python` works offline, on a
machine with no setuptools or wheel, as well as online. The backend writes a
wheel (PEP 427) and an sdist from the files listed in PACKAGES; the project's
name, version, summary and Python requirement are read from pyproject.toml's
[project] table so there is one place to change them.

Hooks: build_wheel, build_sdist, build_editable (a .pth file pointing at the
source tree), and prepare_metadata_for_build_wheel/_editable.
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
PACKAGES = ("mnemon", "mnemon/integrations")
DATA_FILES = ("mnemon/py.typed",)
# Wheel timestamps are fixed so the same sources build the same bytes.
EPOCH = (1980, 1, 1, 0, 0, 0)


def _project() -> Dict[str, str]:
    """The [project] table's plain string keys (name, version, ...)."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if not m:
        raise RuntimeError("pyproject.toml has no [project] table")
    out: Dict[str, str] = {}
    for key, value in re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"\s*$', m.group(1), re.M):
        out[key] = value
    for key in ("name", "version"):
        if key not in out:
            raise RuntimeError("pyproject.toml's [project] has no " + key)
    return out


def _metadata(p: Dict[str, str]) -> str:
    lines = ["Metadata-Version: 2.1", "Name: " + p["name"], "Version: " + p["version"]]
    if "description" in p:
        lines.append("Summary: " + p["description"])
    if "requires-python" in p:
        lines.append("Requires-Python: " + p["requires-python"])
    lines += ["Classifier: Programming Language :: Python :: 3", "Classifier: Typing :: Typed"]
    body = ""
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return "\n".join(lines) + "\n\n" + body


def _sources() -> List[str]:
    """Every file the wheel carries, relative to ROOT, in a stable order."""
    files: List[str] = []
    for pkg in PACKAGES:
        for name in sorted(os.listdir(os.path.join(ROOT, pkg))):
            if name.endswith(".py"):
                files.append(pkg + "/" + name)
    files += [f for f in DATA_FILES if os.path.exists(os.path.join(ROOT, f))]
    return files


def _dist_info(p: Dict[str, str]) -> str:
    return "%s-%s.dist-info" % (p["name"].replace("-", "_"), p["version"])


def _wheel_name(p: Dict[str, str]) -> str:
    return "%s-%s-py3-none-any.whl" % (p["name"].replace("-", "_"), p["version"])


def _dist_info_files(p: Dict[str, str]) -> List[Tuple[str, bytes]]:
    wheel = "Wheel-Version: 1.0\nGenerator: mnemon_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    return [("METADATA", _metadata(p).encode()), ("WHEEL", wheel.encode())]


def _write_wheel(directory: str, entries: List[Tuple[str, bytes]]) -> str:
    p = _project()
    info = _dist_info(p)
    entries = entries + [(info + "/" + n, data) for n, data in _dist_info_files(p)]
    record = io.StringIO()
    path = os.path.join(directory, _wheel_name(p))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(zipfile.ZipInfo(name, EPOCH), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.write("%s,sha256=%s,%d\n" % (name, digest, len(data)))
        record.write(info + "/RECORD,,\n")
        z.writestr(zipfile.ZipInfo(info + "/RECORD", EPOCH), record.getvalue())
    return os.path.basename(path)


def _read(rel: str) -> bytes:
    with open(os.path.join(ROOT, rel), "rb") as f:
        return f.read()


# PEP 517 hooks.

def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Optional[dict] = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Optional[dict] = None) -> str:
    p = _project()
    info = _dist_info(p)
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, data in _dist_info_files(p):
        with open(os.path.join(metadata_directory, info, name), "wb") as f:
            f.write(data)
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _write_wheel(wheel_directory, [(rel, _read(rel)) for rel in _sources()])


def build_editable(wheel_directory: str, config_settings: Optional[dict] = None,
                   metadata_directory: Optional[str] = None) -> str:
    # A .pth line puts the source tree on sys.path: edits show up at once.
    return _write_wheel(wheel_directory, [("mnemon_editable.pth", (ROOT + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    p = _project()
    base = "%s-%s" % (p["name"].replace("-", "_"), p["version"])
    path = os.path.join(sdist_directory, base + ".tar.gz")
    files = ["pyproject.toml", "README.md", "build_backend/mnemon_build.py"] + _sources()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in files:
            data = _read(rel)
            info = tarfile.TarInfo(base + "/" + rel)
            info.size, info.mtime, info.mode = len(data), 315532800, 0o644
            tar.addfile(info, io.BytesIO(data))
        pkg_info = _metadata(p).encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size, info.mtime, info.mode = len(pkg_info), 315532800, 0o644
        tar.addfile(info, io.BytesIO(pkg_info))
    return os.path.basename(path)
