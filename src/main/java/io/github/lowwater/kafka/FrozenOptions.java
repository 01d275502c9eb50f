package io.github.lowwater.kafka;

import io.github.lowwater.window.EventTimeOptions;

/**
 * The event-time options of a {@link KafkaWindows.Builder} as {@code build()} found them, copied so
 * that a change to the builder afterwards changes nothing, and handed to the windows of every
 * partition assigned later. Only {@code build()} sets them, once; nothing else holds this object.
 */
final class FrozenOptions extends EventTimeOptions<FrozenOptions> {

  /**
   * Sets these options on a fresh builder of a window kind.
   *
   * @param kind the builder of a partition's (or the merged) windows
   * @param <B> its type
   * @return {@code kind}
   */
  <B extends EventTimeOptions<B>> B applyTo(B kind) {
    return copyOptionsTo(kind);
  }
}
