/**
 * Internal helpers shared by Lowwater's packages. Not part of the supported API: anything here may
 * change or disappear in any release.
 */
package io.github.lowwater.internal;
