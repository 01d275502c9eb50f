package io.github.lowwater.cli;

/**
 * A (window, key) result's identity, for comparing a setting's results with the ground truth.
 *
 * @param startMillis the window's start
 * @param key the key
 */
record WindowKey(long startMillis, String key) {}
