package io.github.lowwater.cli;

/**
 * One candidate setting the replay tries: an allowed lateness and an idle timeout.
 *
 * @param allowedLatenessMillis the allowed lateness, {@code >= 0}
 * @param idleTimeoutMillis the idle timeout, {@code > 0}
 */
record Setting(long allowedLatenessMillis, long idleTimeoutMillis) {}
