/**
 * fabric8's mock Kubernetes API server in CRUD mode with crifresh's dispatcher ({@link
 * dev.crifresh.mockapi.CrudApiServer}, {@link dev.crifresh.mockapi.MockApiDispatcher}): real HTTP and watches, with the
 * fixes and API behaviour the project's tests and the simulator rely on. Uses nothing else of the module.
 */
@MayUse({})
package dev.crifresh.mockapi;

import dev.crifresh.common.arch.MayUse;
