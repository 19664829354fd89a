/**
 * xspattern ships types its package.json `exports` do not reach under NodeNext resolution; its
 * module is read here only through the parser a patch exports (xsd-regex.ts checks it is there).
 */
declare module 'xspattern';
