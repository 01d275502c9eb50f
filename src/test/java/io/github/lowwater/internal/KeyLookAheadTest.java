package io.github.lowwater.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.lowwater.window.Aggregators;
import io.github.lowwater.window.TumblingWindows;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link KeyLookAhead}: the window package installs the one implementation, once. */
class KeyLookAheadTest {

  @Test
  void theWindowPackageInstallsItOnceAndASecondInstallIsRefused() {
    TumblingWindows.builder(Duration.ofMillis(10), Aggregators.sumLong()).build(); // loads it
    KeyLookAhead installed = KeyLookAhead.get();
    assertThat(installed).isNotNull();
    assertThatThrownBy(() -> KeyLookAhead.install(installed))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("installed already");
    assertThat(KeyLookAhead.get()).isSameAs(installed);
  }
}
