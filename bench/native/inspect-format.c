/*
 * The native reference for xml_inspect and xml_format (bench/native-c.ts builds and runs it):
 * what our engine does, in C on the system's libxml2, timed in process.
 *
 *   inspect-format <file> <iterations>
 *
 * inspect: parse from memory with the options of a query parse, then one walk that gathers
 * what src/engine/shape.ts gathers (elements per name, distinct paths with their counts,
 * attributes per path, depth, whether a path holds text). format: parse from memory with the
 * options of a format parse, then serialise indented to memory. Prints one JSON line: the
 * median and the minimum of each, in ms, the median of the query parse alone, the walk's totals (to compare with ours) and the
 * formatted size.
 */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlsave.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One distinct element path: its name (the dictionary pointer), its children, its attributes. */
typedef struct Path {
    const xmlChar *name;
    const xmlNs *ns;
    struct Path *parent;
    struct Path *children; /* first child path */
    struct Path *sibling;  /* next child path of the same parent */
    struct Path *last;     /* the child path found last */
    long count;
    int text;
    struct Attr *attributes;
} Path;

typedef struct Attr {
    const xmlChar *name;
    const xmlNs *ns;
    long count;
    struct Attr *next;
} Attr;

/* Element names by (name pointer, namespace pointer): an open-addressed table. */
typedef struct {
    const xmlChar *name;
    const xmlNs *ns;
    long count;
} NameCount;

#define NAME_SLOTS 4096
typedef struct {
    NameCount slots[NAME_SLOTS];
    long distinct;
} Names;

typedef struct {
    long elements;
    long attributes;
    long paths;
    long names;
    int maxDepth;
} Totals;

static double nowMs(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void countName(Names *names, const xmlChar *name, const xmlNs *ns) {
    uintptr_t h = ((uintptr_t)name >> 3) ^ ((uintptr_t)ns >> 5);
    for (size_t i = h % NAME_SLOTS;; i = (i + 1) % NAME_SLOTS) {
        NameCount *slot = &names->slots[i];
        if (slot->name == name && slot->ns == ns) {
            slot->count++;
            return;
        }
        if (slot->name == NULL) {
            slot->name = name;
            slot->ns = ns;
            slot->count = 1;
            names->distinct++;
            return;
        }
    }
}

static Path *childPath(Path *parent, const xmlChar *name, const xmlNs *ns, long *paths) {
    if (parent->last && parent->last->name == name && parent->last->ns == ns) return parent->last;
    Path **at = &parent->children;
    for (; *at; at = &(*at)->sibling)
        if ((*at)->name == name && (*at)->ns == ns) return parent->last = *at;
    Path *path = calloc(1, sizeof(Path));
    path->name = name;
    path->ns = ns;
    path->parent = parent;
    *at = path;
    (*paths)++;
    return parent->last = path;
}

static void countAttribute(Path *path, const xmlAttr *attr) {
    Attr **at = &path->attributes;
    for (; *at; at = &(*at)->next) {
        if ((*at)->name == attr->name && (*at)->ns == attr->ns) {
            (*at)->count++;
            return;
        }
    }
    Attr *entry = calloc(1, sizeof(Attr));
    entry->name = attr->name;
    entry->ns = attr->ns;
    entry->count = 1;
    *at = entry;
}

static int holdsText(const xmlChar *content) {
    for (const xmlChar *c = content; c && *c; c++)
        if (*c != ' ' && *c != '\t' && *c != '\r' && *c != '\n') return 1;
    return 0;
}

static void freePaths(Path *path) {
    while (path) {
        Path *next = path->sibling;
        freePaths(path->children);
        for (Attr *a = path->attributes; a;) {
            Attr *n = a->next;
            free(a);
            a = n;
        }
        free(path);
        path = next;
    }
}

/* The walk of shape.ts: document order, no recursion, following children/next/parent. */
static Totals shape(xmlDocPtr doc) {
    Totals totals = {0};
    Names *names = calloc(1, sizeof(Names));
    Path top = {0};
    Path *open[300];
    open[0] = &top;
    int depth = 1;
    xmlNodePtr node = doc->children;
    while (node) {
        Path *parent = open[depth - 1];
        if (node->type == XML_ELEMENT_NODE) {
            if (depth > totals.maxDepth) totals.maxDepth = depth;
            totals.elements++;
            countName(names, node->name, node->ns);
            Path *path = childPath(parent, node->name, node->ns, &totals.paths);
            path->count++;
            open[depth] = path;
            for (xmlAttrPtr attr = node->properties; attr; attr = attr->next) {
                totals.attributes++;
                countAttribute(path, attr);
            }
            if (node->children) {
                node = node->children;
                depth++;
                continue;
            }
        } else if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE) {
            if (depth > totals.maxDepth) totals.maxDepth = depth;
            if (!parent->text && depth > 1 && holdsText(node->content)) parent->text = 1;
        } else if (node->type != XML_DTD_NODE && depth > 1 && depth > totals.maxDepth) {
            totals.maxDepth = depth;
        }
        while (depth > 0) {
            if (node->next) {
                node = node->next;
                break;
            }
            node = node->parent;
            depth--;
        }
        if (depth == 0) break;
    }
    totals.names = names->distinct;
    freePaths(top.children);
    free(names);
    return totals;
}

static int byValue(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double medianOf(double *samples, int n) {
    qsort(samples, n, sizeof(double), byValue);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <file> <iterations>\n", argv[0]);
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) {
        perror(argv[1]);
        return 1;
    }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *xml = malloc(size);
    if (fread(xml, 1, size, file) != (size_t)size) return 1;
    fclose(file);
    int iterations = atoi(argv[2]);
    if (iterations < 1) iterations = 1;

    /* The options of src/engine/parse.ts (XML_PARSE_NO_XXE is 2.13's; 2.9 loads no DTD without DTDLOAD). */
    const int safe = XML_PARSE_NONET | XML_PARSE_BIG_LINES;
    const int queryOptions = safe | XML_PARSE_DTDATTR | XML_PARSE_NOENT | XML_PARSE_NOCDATA;
    const int formatOptions = safe | XML_PARSE_NOBLANKS;

    double *inspectMs = malloc(sizeof(double) * iterations);
    double *formatMs = malloc(sizeof(double) * iterations);
    double *parseMs = malloc(sizeof(double) * iterations);
    Totals totals = {0};
    long formatted = 0;
    xmlIndentTreeOutput = 1;
    xmlTreeIndentString = "  ";
    /* One untimed round of each first, as the JavaScript side is warmed up. */
    for (int i = -1; i < iterations; i++) {
        double start = nowMs();
        xmlDocPtr doc = xmlReadMemory(xml, (int)size, NULL, "utf-8", queryOptions);
        if (!doc) return 1;
        totals = shape(doc);
        xmlFreeDoc(doc);
        double walked = nowMs();

        doc = xmlReadMemory(xml, (int)size, NULL, "utf-8", formatOptions);
        if (!doc) return 1;
        xmlBufferPtr buffer = xmlBufferCreate();
        xmlSaveCtxtPtr save = xmlSaveToBuffer(buffer, "utf-8", XML_SAVE_FORMAT);
        xmlSaveDoc(save, doc);
        xmlSaveClose(save);
        formatted = xmlBufferLength(buffer);
        xmlBufferFree(buffer);
        xmlFreeDoc(doc);
        double done = nowMs();
        /* The parse alone, to tell the parse's share from the walk's. */
        doc = xmlReadMemory(xml, (int)size, NULL, "utf-8", queryOptions);
        if (!doc) return 1;
        double parsed = nowMs();
        xmlFreeDoc(doc);
        if (i >= 0) {
            inspectMs[i] = walked - start;
            formatMs[i] = done - walked;
            parseMs[i] = parsed - done;
        }
    }
    double inspectMedian = medianOf(inspectMs, iterations);
    double formatMedian = medianOf(formatMs, iterations);
    double parseMedian = medianOf(parseMs, iterations);
    printf("{\"libxml2\":\"%s\",\"bytes\":%ld,\"iterations\":%d,"
           "\"parse\":{\"medianMs\":%.3f},\"inspect\":{\"medianMs\":%.3f,\"minMs\":%.3f},\"format\":{\"medianMs\":%.3f,\"minMs\":%.3f},"
           "\"totals\":{\"elements\":%ld,\"attributes\":%ld,\"paths\":%ld,\"names\":%ld,\"maxDepth\":%d},"
           "\"formattedBytes\":%ld}\n",
           LIBXML_DOTTED_VERSION, size, iterations, parseMedian, inspectMedian, inspectMs[0], formatMedian, formatMs[0],
           totals.elements, totals.attributes, totals.paths, totals.names, totals.maxDepth, formatted);
    free(xml);
    free(inspectMs);
    free(formatMs);
    free(parseMs);
    return 0;
}
