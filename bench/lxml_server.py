#!/usr/bin/python3
"""A minimal MCP-like stdio server on lxml (native libxml2): the benchmark's reference point.

One JSON-RPC message per line on stdin, one reply per line on stdout. It answers `initialize`
and `tools/call` for the five tools, `xml_query`, `xml_inspect`, `xml_check`, `xml_validate` and
`xml_format`, with the answers oxml-mcp gives on the benchmark's documents (bench/run.ts checks
each `structuredContent`, and `xml_format`'s text, against ours before it times anything).
Nothing else: no argument checks, no worker, no limits, no output budget, so it is about the
floor a server on native libxml2 can reach. Where a tool walks the tree (inspect's names and
depth, check's node count) the walk is lxml's C iteration or an XPath count, not Python code per
node where lxml offers one.

What it leaves out, all absent from the benchmark's documents:
- Context node: lxml evaluates an expression on an ElementTree from the document node when it
  is absolute (`count(//record)`, `/records/record`), but a relative one (`records/record`) from
  the root element; lxml has no way to make the document node the context. The benchmark sends
  only absolute expressions, for which the two agree.
- xml_inspect: no budget on the names listed (`truncated`, `distinctElements` never appear).
- xml_check: `nodes` is `count(//node()) + count(//@*)`; libxml2's tree, which oxml-mcp walks,
  differs from the XPath data model only for CDATA sections next to text and for entity
  references, which XPath merges.
- xml_validate: a violation's `path` is lxml's (`/records/x`); ours is built the same way, but
  the benchmark only sends valid documents.
- xml_format: `indent` and the self-closing empty elements only; the declaration is written
  when the input has one, as ours does.
"""

import json
import math
import sys
from collections import Counter

from lxml import etree

PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
FORMAT_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, remove_blank_text=True)
SCHEMA_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
TEXT = "text"


def number(value):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return str(int(value)) if value == int(value) else repr(value)


def string_value(item):
    if isinstance(item, str):  # attribute and text results are "smart strings"
        return str(item)
    return "".join(item.itertext()) if hasattr(item, "itertext") else str(item)


def parse(xml, parser=PARSER):
    return etree.fromstring(xml.encode("utf-8"), parser).getroottree()


def answer(text, structured=None):
    result = {"content": [{"type": TEXT, "text": text}]}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def xml_query(arguments):
    document = parse(arguments["xml"])
    result = document.xpath(arguments["xpath"], namespaces=arguments.get("namespaces") or None)
    if isinstance(result, bool):
        found = {"type": "boolean", "count": 1, "values": ["true" if result else "false"]}
    elif isinstance(result, float):
        found = {"type": "number", "count": 1, "values": [number(result)]}
    elif isinstance(result, str):
        found = {"type": "string", "count": 1, "values": [str(result)]}
    else:
        found = {"type": "node-set", "count": len(result), "values": [string_value(n) for n in result]}
    return answer("\n".join(found["values"]), found)


def written_name(element):
    local = etree.QName(element).localname
    return f"{element.prefix}:{local}" if element.prefix else local


def xml_inspect(arguments):
    document = parse(arguments["xml"])
    root = document.getroot()
    counts = Counter()
    namespaces = {}
    attributes = 0
    max_depth = 1
    depth = 0
    # iterwalk: C iteration over elements, comments and PIs in document order.
    for event, node in etree.iterwalk(root, events=("start", "end")):
        if event == "end":
            depth -= 1
            continue
        depth += 1
        if not isinstance(node.tag, str):  # a comment or PI: a leaf, one level below its parent
            max_depth = max(max_depth, depth)
            depth -= 1
            continue
        # Text inside the element, or any child, sits one level deeper than it.
        max_depth = max(max_depth, depth + 1 if node.text is not None or len(node) else depth)
        name = written_name(node) if node.tag[0] == "{" else node.tag
        counts[name] += 1
        attributes += len(node.attrib)
        if node.tag[0] == "{":
            uri = etree.QName(node).namespace
            use = namespaces.setdefault(uri, {"uri": uri, "prefixes": [], "elements": 0})
            if node.prefix not in use["prefixes"]:
                use["prefixes"].append(node.prefix)
            use["elements"] += 1
    elements = [{"name": n, "count": c} for n, c in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    structured = {
        "root": written_name(root),
        "maxDepth": max_depth,
        "elements": elements,
        "namespaces": list(namespaces.values()),
        "totalElements": sum(counts.values()),
        "attributes": attributes,
    }
    lines = [
        f"Root element: {structured['root']}",
        f"Maximum depth: {max_depth}",
        f"Elements: {structured['totalElements']} in {len(elements)} names; attributes: {attributes}",
        *(f"  {e['name']}: {e['count']}" for e in elements),
    ]
    return answer("\n".join(lines), structured)


def xml_check(arguments):
    document = etree.fromstring(arguments["xml"].encode("utf-8"), PARSER).getroottree()
    elements = int(document.xpath("count(//*)"))
    nodes = int(document.xpath("count(//node()) + count(//@*)"))
    return answer(f"Well-formed: {nodes} nodes ({elements} elements).", {"wellFormed": True, "elements": elements, "nodes": nodes})


def xml_validate(arguments):
    document = parse(arguments["xml"])
    schema = etree.XMLSchema(etree.fromstring(arguments["xsd"].encode("utf-8"), SCHEMA_PARSER))
    if schema.validate(document):
        return answer("Valid: the document conforms to the schema.", {"valid": True, "total": 0, "violations": []})
    violations = [{"message": e.message, "path": e.path, "line": e.line} for e in schema.error_log]
    text = f"Invalid: {len(violations)} violation(s) of the schema."
    result = answer(text, {"valid": False, "total": len(violations), "violations": violations})
    result["isError"] = True
    return result


def xml_format(arguments):
    xml = arguments["xml"]
    document = etree.fromstring(xml.encode("utf-8"), FORMAT_PARSER).getroottree()
    indent = arguments.get("indent", 2)
    if indent != 2:
        etree.indent(document, space=" " * indent)
    body = etree.tostring(document, encoding="unicode", pretty_print=indent > 0)
    declaration = '<?xml version="1.0" encoding="utf-8"?>\n' if xml.lstrip("\ufeff").startswith("<?xml") else ""
    return answer(declaration + body.rstrip("\n"))


TOOLS = {
    "xml_query": xml_query,
    "xml_inspect": xml_inspect,
    "xml_check": xml_check,
    "xml_validate": xml_validate,
    "xml_format": xml_format,
}


def handle(message):
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {
                "name": "lxml-reference",
                "version": ".".join(map(str, etree.LXML_VERSION)),
                "libxml2": ".".join(map(str, etree.LIBXML_VERSION)),
                "python": sys.version.split()[0],
            },
        }
    if method == "tools/call" and message["params"]["name"] in TOOLS:
        try:
            return TOOLS[message["params"]["name"]](message["params"]["arguments"])
        except (etree.XMLSyntaxError, etree.XPathError, etree.XMLSchemaParseError) as error:
            return {"content": [{"type": "text", "text": str(error)}], "isError": True}
    raise LookupError(method)


def main():
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        try:
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": handle(message)}
        except LookupError as error:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": f"Method not found: {error}"}}
        out.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
