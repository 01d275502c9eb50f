/**
 * The code blocks of README.md and docs/*.md, compiled: each {@code ```java} block appears,
 * verbatim up to whitespace (an ellipsis {@code ...} in a block stands for code left out), between
 * a {@code // snippet:} and an {@code // end snippet} line of one of these files (or of the
 * modules' own {@code docs} test packages), which {@code DocsCodeBlocksTest} checks. The snippets
 * are compiled, never run: the variables a block uses are the parameters of its method.
 */
package io.github.lowwater.docs;
