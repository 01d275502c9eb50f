package io.github.lowwater.spring.boot;

import io.github.lowwater.spring.LowwaterContainer;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * The containers of every {@code LowwaterListener} bean of the application, started and stopped
 * with its context. A bean: an application reaches its listeners' containers through it, by the
 * listener's name ({@link #container(String)}), to ask which partitions a consumer holds, to read
 * its windows' stats, or to stop and start a listener. Thread-safe.
 */
public final class LowwaterContainers implements SmartLifecycle {
  private final List<LowwaterContainer<?, ?>> containers;
  private volatile boolean running;

  LowwaterContainers(List<LowwaterContainer<?, ?>> containers) {
    this.containers = List.copyOf(containers);
  }

  /**
   * The containers, one per listener bean.
   *
   * @return them, unmodifiable
   */
  public List<LowwaterContainer<?, ?>> containers() {
    return containers;
  }

  /**
   * The containers of the listener named {@code name}: its {@code name(...)}, or its group id when
   * none was given.
   *
   * <pre>{@code
   * LowwaterContainer<?, ?> arrivals = context.getBean(LowwaterContainers.class).container("arrivals-5m");
   * arrivals.containers().get(0).getAssignedPartitions(); // what consumer 0 holds
   * arrivals.stop();                                      // its consumers leave the group
   * }</pre>
   *
   * @param name the listener's name
   * @return its containers
   * @throws IllegalArgumentException if no listener has that name (the message lists the names)
   */
  public LowwaterContainer<?, ?> container(String name) {
    for (LowwaterContainer<?, ?> c : containers) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "no LowwaterListener is named '"
            + name
            + "'; the listeners are "
            + containers.stream().map(LowwaterContainer::name).toList());
  }

  @Override
  public void start() {
    containers.forEach(LowwaterContainer::start);
    running = true;
  }

  @Override
  public void stop() {
    containers.forEach(LowwaterContainer::stop);
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return LowwaterContainer.PHASE;
  }
}
