package dev.crifresh.charts;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.marcnuri.helm.DryRun;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import org.junit.jupiter.api.Test;

class LintAndNotesTest {

    @Test
    void strictLintPasses() {
        LintResult result = new Helm(Chart.SOURCE).lint().strict().call();
        assertFalse(result.isFailed(), result.getMessages().toString());
        for (String message : result.getMessages()) {
            assertFalse(message.contains("[WARNING]") || message.contains("[ERROR]"), message);
        }
    }

    @Test
    void notesShowHowToSeeAndWaitForTheConditionAndThePodSecurityLabel() {
        String notes = new Helm(Chart.SOURCE).install().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE)
                .dryRun().withDryRunOption(DryRun.CLIENT).clientOnly().call().getOutput();
        assertTrue(notes.contains("kubectl get nodes -o custom-columns='NAME:.metadata.name,"
                + "FRESH:.status.conditions[?(@.type==\"ContainerdConfigFresh\")].status,"
                + "REASON:.status.conditions[?(@.type==\"ContainerdConfigFresh\")].reason"), notes);
        assertTrue(notes.contains("kubectl wait --for=condition=ContainerdConfigFresh node --all"), notes);
        assertTrue(notes.contains("kubectl label namespace crifresh pod-security.kubernetes.io/enforce=privileged"), notes);
        assertTrue(notes.contains("helm uninstall` keeps them"), notes);
    }
}
