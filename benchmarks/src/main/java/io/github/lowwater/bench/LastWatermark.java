package io.github.lowwater.bench;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkOutput;

/** The underlying output of Flink's multiplexer in the baselines: keeps the last combined value. */
final class LastWatermark implements WatermarkOutput {
  long watermark = Long.MIN_VALUE;
  boolean idle;

  @Override
  public void emitWatermark(Watermark mark) {
    watermark = mark.getTimestamp();
    idle = false;
  }

  @Override
  public void markIdle() {
    idle = true;
  }

  @Override
  public void markActive() {
    idle = false;
  }
}
