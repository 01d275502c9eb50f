/**
 * Measured disorder and the settings it suggests: a {@link
 * io.github.lowwater.tuning.DisorderRecorder} keeps, per source, the histograms of how far each
 * event lags its source's frontier, of the gaps between a source's records on the monotonic clock,
 * and of how far late events were behind the watermark; an {@link
 * io.github.lowwater.tuning.Advisor} turns a {@link io.github.lowwater.tuning.DisorderSnapshot} of
 * them into an allowed lateness for a target late fraction and an idle timeout, each with its
 * expected result delay ({@link io.github.lowwater.tuning.Advice}). See {@code docs/tuning.md}.
 *
 * <p>{@code org.hdrhistogram:HdrHistogram} is an optional dependency of this library, used by this
 * package only: bring your own (built and tested against 2.2.2). The core packages do not depend on
 * it. Opt-in: a recorder that is not constructed costs nothing.
 */
package io.github.lowwater.tuning;
