/**
 * Ordered release: {@link io.github.lowwater.align.EventAligner} buffers events per source and
 * releases them, once the watermark has passed them, in one deterministic (event time, source,
 * offset) order.
 *
 * <p>This package depends on nothing but the JDK, {@code slf4j-api} and {@code io.github.lowwater}.
 */
package io.github.lowwater.align;
