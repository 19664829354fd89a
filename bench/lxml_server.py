#!/usr/bin/python3
"""A minimal MCP-like stdio server on lxml (native libxml2): the reference point of issue 5.

One JSON-RPC message per line on stdin, one reply per line on stdout. It answers `initialize`
and `tools/call` for `xml_query` only: parse the document (UTF-8 bytes, no network, no external
entities), evaluate the XPath expression on the parsed tree, and answer the way oxml-mcp does
(a whole-number result is written as an integer). Nothing else: no argument checks, no worker,
no limits, no output budget, so it is about the floor a server on native libxml2 can reach.

Context node: lxml evaluates an expression on an ElementTree from the document node when it is
absolute (`count(//record)`, `/records/record`), but a relative one (`records/record`) from the
root element; lxml has no way to make the document node the context. The benchmark sends only
absolute expressions, for which the two agree.
"""

import json
import math
import sys

from lxml import etree

PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


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


def xml_query(arguments):
    document = etree.fromstring(arguments["xml"].encode("utf-8"), PARSER).getroottree()
    result = document.xpath(arguments["xpath"], namespaces=arguments.get("namespaces") or None)
    if isinstance(result, bool):
        answer = {"type": "boolean", "count": 1, "values": ["true" if result else "false"]}
    elif isinstance(result, float):
        answer = {"type": "number", "count": 1, "values": [number(result)]}
    elif isinstance(result, str):
        answer = {"type": "string", "count": 1, "values": [str(result)]}
    else:
        answer = {"type": "node-set", "count": len(result), "values": [string_value(n) for n in result]}
    text = "\n".join(answer["values"])
    return {"content": [{"type": "text", "text": text}], "structuredContent": answer}


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
    if method == "tools/call" and message["params"]["name"] == "xml_query":
        try:
            return xml_query(message["params"]["arguments"])
        except (etree.XMLSyntaxError, etree.XPathError) as error:
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
