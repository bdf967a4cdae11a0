package dev.crifresh.coordinator.rollout.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When the final inventory is read and when its read ends the run ({@link InventoryGate}), table-driven. */
class InventoryGateTest {
    @ParameterizedTest(name = "reading={0} attesting={1} tainting={2} undecided={3}")
    @CsvSource({
            // reading, attesting, tainting, undecided → may read, ends the run (none found), ends the run (one found)
            "false, false, 0, 0, true,  true,  false",
            "true,  false, 0, 0, false, true,  false",
            "false, true,  0, 0, false, false, false",
            "false, false, 1, 0, false, false, false",
            "false, false, 0, 2, false, true,  false",
            "true,  true,  3, 1, false, false, false"})
    void gates(boolean reading, boolean attesting, int tainting, int undecided, boolean mayRead, boolean endsNoneFound,
               boolean endsOneFound) {
        InventoryGate gate = new InventoryGate(reading, attesting, tainting, undecided);
        assertEquals(mayRead, gate.mayRead(), "may read");
        assertEquals(endsNoneFound, gate.endsRun(false), "the read found every node classified");
        assertEquals(endsOneFound, gate.endsRun(true), "the read found a node nobody classified");
    }
}
