package io.github.lowwater.micrometer;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * The meters one binder registered, each with the registry it went to, so that they can be removed
 * again: on {@code close()}, or for a partition that left. Not thread-safe; the binders guard it.
 */
final class BoundMeters {

  private record Bound(MeterRegistry registry, Meter meter) {}

  private final List<Bound> bound = new ArrayList<>();

  /** Remembers a meter registered in {@code registry}. */
  void add(MeterRegistry registry, Meter meter) {
    bound.add(new Bound(registry, meter));
  }

  /** Removes every remembered meter from its registry and forgets them all. */
  void removeAll() {
    for (Bound b : bound) {
      b.registry().remove(b.meter());
    }
    bound.clear();
  }
}
