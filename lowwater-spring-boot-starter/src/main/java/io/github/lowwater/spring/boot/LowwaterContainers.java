package io.github.lowwater.spring.boot;

import io.github.lowwater.spring.LowwaterContainer;
import java.util.List;
import org.springframework.context.SmartLifecycle;

/**
 * The containers of every {@code LowwaterListener} bean of the application, started and stopped
 * with its context.
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
