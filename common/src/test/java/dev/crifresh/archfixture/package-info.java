/** Fixture for PackageRulesCatchTest: the sub-packages below break every package rule once. */
@Layers({"high", "low"})
@MayUse({})
package dev.crifresh.archfixture;

import dev.crifresh.common.arch.Layers;
import dev.crifresh.common.arch.MayUse;
