package io.github.lowwater.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link HoppingAssigner} against exact {@link BigInteger} arithmetic, for random shapes and times
 * across zero, negative ones and the edges of the range it {@linkplain HoppingAssigner#fits fits}.
 */
class HoppingAssignerTest {

  @Test
  void firstAndLastWindowsAreExactAcrossTheWholeFittingRange() {
    Random random = new Random(17);
    for (int i = 0; i < 20_000; i++) {
      long size = 1 + random.nextInt(1_000);
      long advance = 1 + random.nextInt((int) size);
      long offset = random.nextLong();
      HoppingAssigner shape = new HoppingAssigner(size, advance, offset);
      long t =
          switch (random.nextInt(4)) {
            case 0 -> Long.MIN_VALUE + size + random.nextInt(3 * (int) size);
            case 1 -> Long.MAX_VALUE - size - random.nextInt(3 * (int) size);
            case 2 -> random.nextInt(4_000) - 2_000;
            default -> random.nextLong() / 2;
          };
      if (!shape.fits(t)) {
        continue;
      }
      BigInteger bt = BigInteger.valueOf(t);
      BigInteger a = BigInteger.valueOf(advance);
      BigInteger o = BigInteger.valueOf(offset).mod(a);
      BigInteger lastStart = bt.subtract(bt.subtract(o).mod(a));
      BigInteger firstStart = lastStart;
      while (firstStart.subtract(a).add(BigInteger.valueOf(size)).compareTo(bt) > 0) {
        firstStart = firstStart.subtract(a);
      }
      String what = "size " + size + " advance " + advance + " offset " + offset + " t " + t;
      assertThat(shape.lastStart(t)).as(what).isEqualTo(lastStart.longValueExact());
      assertThat(shape.firstStart(t)).as(what).isEqualTo(firstStart.longValueExact());
      assertThat(shape.lastEnd(t)).as(what).isEqualTo(lastStart.longValueExact() + size);
      assertThat(shape.firstEnd(t)).as(what).isEqualTo(firstStart.longValueExact() + size);
    }
  }

  @Test
  void panesAreTheGcdOfSizeAndAdvanceOnTheSameOffset() {
    HoppingAssigner shape = new HoppingAssigner(60, 45, 7);
    assertThat(shape.paneMillis()).isEqualTo(15);
    assertThat(shape.paneOffsetMillis()).isEqualTo(7);
    assertThat(HoppingAssigner.gcd(12, 12)).isEqualTo(12);
    assertThat(new HoppingAssigner(10, 10, -3).lastStart(0)).isEqualTo(-3);
  }

  @Test
  void fitsIsTheRangeWhereEveryWindowOfAnEventIsALong() {
    HoppingAssigner shape = new HoppingAssigner(10, 5, 0);
    assertThat(shape.fits(Long.MAX_VALUE - 10)).isTrue();
    assertThat(shape.fits(Long.MAX_VALUE - 9)).isFalse();
    assertThat(shape.fits(Long.MIN_VALUE + 10)).isTrue();
    assertThat(shape.fits(Long.MIN_VALUE + 9)).isFalse();
  }
}
