package io.github.lowwater.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one way every builder checks an option: the value passes through or is named with it. */
class ChecksTest {

  @Test
  void aValidDurationIsReturnedAsIs() {
    Duration d = Duration.ofMillis(1);
    assertThat(Checks.requirePositive(d, "idleTimeout")).isSameAs(d);
    assertThat(Checks.requireNonNegative(d, "allowedLateness")).isSameAs(d);
    assertThat(Checks.requireNonNegative(Duration.ZERO, "allowedLateness")).isZero();
  }

  @Test
  void aRejectedDurationIsNamedWithItsValueAndTheRule() {
    assertThatThrownBy(() -> Checks.requirePositive(Duration.ZERO, "idleTimeout"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idleTimeout must be > 0: PT0S");
    assertThatThrownBy(() -> Checks.requireNonNegative(Duration.ofNanos(-1), "allowedLateness"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("allowedLateness must be >= 0: PT-0.000000001S");
    assertThatThrownBy(() -> Checks.requirePositive(null, "idleTimeout"))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("idleTimeout");
    assertThatThrownBy(() -> Checks.requireUnset(false, "maxDrift", Duration.ofSeconds(5)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("maxDrift was already set to PT5S");
  }
}
