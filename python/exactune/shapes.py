"""A family's default shapes (shapes/<name>.yaml of the source tree),
for the tests and benchmarks of the torch ops. Those files use one flat form —
`shapes:` then a list of mappings of scalars, with comments — read here without
a YAML library, which the GPU machine's Python may lack. The C++ reader
(harness/shapes/) remains the validating one."""

from . import _native

__all__ = ["default_shapes"]


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def default_shapes(family):
    """[{"name": ..., "batch": 2, ...}, ...] in the file's order."""
    path = _native.source_dir() / "shapes" / f"{family}.yaml"
    shapes = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip() or line.strip() == "shapes:":
            continue
        item = line.strip()
        if item.startswith("- "):
            shapes.append({})
            item = item[2:]
        if ":" not in item or not shapes:
            raise ValueError(f"{path}:{number}: not a 'key: value' line of a shape: {raw!r}")
        key, value = item.split(":", 1)
        shapes[-1][key.strip()] = _scalar(value)
    return shapes
