"""YAML text -> data, with line numbers per JSON Pointer and the YAML 1.1 traps flagged.

PyYAML implements YAML 1.1, where unquoted ``on``/``off``/``yes``/``no`` are booleans: a case
saying ``capture: on`` would silently mean ``capture: true``. Parsing here records every such
scalar so validation errors can say what happened, and rejects duplicate keys, which PyYAML
would otherwise resolve silently by keeping the last.

Anchors and aliases are refused: no case or policy needs them, and a few hundred bytes of nested
aliases (a "billion laughs" document) would otherwise expand into hundreds of megabytes before any check.
The refusal comes while the node graph is indexed, before anything is constructed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._errors import InputError, ScorecardError
from ._pointer import escape

if TYPE_CHECKING:
    import yaml

__all__ = ["ParsedYaml", "parse_yaml"]

_BOOLEAN_WORDS = frozenset({"y", "yes", "n", "no", "on", "off"})
#: The parser, chosen by the first parse: libyaml's when PyYAML was built with it (much faster at
#: start-up), else PyYAML's. PyYAML itself is imported then, not with this module: a command
#: that reads no YAML (no catalog, no policy file) does not pay for it (docs/performance.md).
_LOADER: type[yaml.SafeLoader] | None = None


def _loader() -> type[yaml.SafeLoader]:
    global _LOADER
    if _LOADER is None:
        import yaml

        _LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return _LOADER


@dataclass
class ParsedYaml:
    """A parsed YAML document and where its values stood."""

    data: Any
    lines: dict[str, int] = field(default_factory=dict)
    """1-based line of the value at each JSON Pointer."""
    implicit_booleans: set[str] = field(default_factory=set)
    """Pointers of unquoted yes/no/on/off scalars that YAML 1.1 read as booleans."""


def parse_yaml(
    text: str, *, source: str, error_type: type[ScorecardError] = InputError
) -> ParsedYaml:
    """Parse one YAML document; syntax errors and duplicate keys raise ``error_type``."""
    import yaml

    loader: yaml.SafeLoader | None = None
    try:
        loader = _loader()(text)  # the reader already rejects control characters
        node = loader.get_single_node()
        if node is None:
            raise error_type("the document is empty", rule="empty_document", source=source)
        parsed = ParsedYaml(data=None)
        _index(node, "", parsed, error_type, source, set())
        parsed.data = loader.construct_document(node)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise error_type(
            f"invalid YAML: {error.problem or error.context}",
            rule="yaml_syntax",
            source=source,
            line=mark.line + 1 if mark else None,
        ) from None
    except yaml.reader.ReaderError as error:
        raise error_type(
            f"invalid YAML: unacceptable character #x{error.character:04x}",
            rule="yaml_syntax",
            source=source,
        ) from None
    except yaml.YAMLError as error:
        raise error_type(
            f"invalid YAML: {type(error).__name__}", rule="yaml_syntax", source=source
        ) from None
    except RecursionError:
        raise error_type("YAML nested too deeply", rule="too_deep", source=source) from None
    finally:
        if loader is not None:
            loader.dispose()
    return parsed


def _index(
    node: yaml.Node,
    pointer: str,
    parsed: ParsedYaml,
    error_type: type[ScorecardError],
    source: str,
    seen_nodes: set[int],
) -> None:
    import yaml

    parsed.lines[pointer] = node.start_mark.line + 1
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        # The composer makes an alias the very node its anchor names: meeting a node twice is
        # meeting an alias.
        if id(node) in seen_nodes:
            raise error_type(
                "YAML aliases are not accepted (write the value out)",
                rule="yaml_alias",
                pointer=pointer,
                source=source,
                line=node.start_mark.line + 1,
            )
        seen_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = f"{pointer}/{escape(key)}"
            if key in seen:
                raise error_type(
                    "duplicate key (YAML would silently keep the last one)",
                    rule="duplicate_key",
                    pointer=child,
                    source=source,
                    line=key_node.start_mark.line + 1,
                )
            seen.add(key)
            _index(value_node, child, parsed, error_type, source, seen_nodes)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index(item, f"{pointer}/{index}", parsed, error_type, source, seen_nodes)
    elif (
        isinstance(node, yaml.ScalarNode)
        and node.tag == "tag:yaml.org,2002:bool"
        and not node.style  # plain: None from PyYAML, "" from libyaml
        and str(node.value).lower() in _BOOLEAN_WORDS
    ):
        parsed.implicit_booleans.add(pointer)
