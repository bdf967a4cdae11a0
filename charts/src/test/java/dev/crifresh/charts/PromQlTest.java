package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The extractor the dashboard and alert checks rely on must find names and only names. */
class PromQlTest {

    @Test
    void findsMetricsAndSkipsFunctionsLabelsKeywordsAndNumbers() {
        assertEquals(Set.of("crifresh_detection_latency_seconds_bucket"), PromQl.metricNames(
                "histogram_quantile(0.99, sum by (le) (rate(crifresh_detection_latency_seconds_bucket{node=~\"$node\"}[$__rate_interval])))"));
        assertEquals(Set.of("kube_node_status_condition"), PromQl.metricNames(
                "count(kube_node_status_condition{condition=\"Ready\"} == 1) - (count(kube_node_status_condition{condition=\"ContainerdConfigFresh\"} == 1) or vector(0))"));
        assertEquals(Set.of("crifresh_attestation_expiry_timestamp_seconds"), PromQl.metricNames(
                "min(crifresh_attestation_expiry_timestamp_seconds) - time()"));
        assertEquals(Set.of("kube_node_status_condition"), PromQl.metricNames(
                "label_values(kube_node_status_condition{condition=\"ContainerdConfigFresh\"}, node)"));
        assertEquals(Set.of("a_metric", "b_metric"), PromQl.metricNames(
                "max by (node) (a_metric) * on (node) group_left (reason) b_metric offset 5m > 1e3"));
        assertEquals(Set.of("up"), PromQl.metricNames("up == bool 0"));
    }
}
