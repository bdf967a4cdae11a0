package dev.crifresh.charts;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationResult;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Evaluates a rendered ValidatingAdmissionPolicy the way the API server does, with Google's CEL
 * implementation: match conditions, then the variables in order (each sees the earlier ones as
 * {@code variables.<name>}), then the validations. Objects are untyped maps here, where the API
 * server has typed Kubernetes objects; the expressions use only field selection, optional access,
 * list macros and equality, which behave the same on both.
 */
final class AdmissionPolicyEvaluator {

    private static final Cel CEL = CelFactory.standardCelBuilder()
            .setOptions(CelOptions.current().enableOptionalSyntax(true).build())
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addCompilerLibraries(CelExtensions.optional())
            .addRuntimeLibraries(CelExtensions.optional())
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("request", SimpleType.DYN)
            .addVar("variables", MapType.create(SimpleType.STRING, SimpleType.DYN))
            .build();

    private final JsonNode spec;

    AdmissionPolicyEvaluator(JsonNode policy) {
        this.spec = policy.path("spec");
    }

    /** Every expression of the policy compiles (parse and type check). */
    List<String> compileErrors() {
        List<String> errors = new ArrayList<>();
        for (String field : List.of("matchConditions", "variables", "validations")) {
            for (JsonNode entry : spec.path(field).values()) {
                CelValidationResult result = CEL.compile(entry.path("expression").asString());
                if (result.hasError()) {
                    errors.add(field + ": " + result.getErrorString());
                }
            }
        }
        return errors;
    }

    boolean matches(Map<String, Object> request) {
        for (JsonNode condition : spec.path("matchConditions").values()) {
            if (!Boolean.TRUE.equals(eval(condition.path("expression").asString(), request, null, null, Map.of()))) {
                return false;
            }
        }
        return true;
    }

    /** The messages of the validations that deny this update (an evaluation error denies: failurePolicy Fail). */
    List<String> denials(Map<String, Object> request, Map<String, Object> oldObject, Map<String, Object> object) {
        Map<String, Object> variables = new LinkedHashMap<>();
        for (JsonNode variable : spec.path("variables").values()) {
            variables.put(variable.path("name").asString(),
                    eval(variable.path("expression").asString(), request, oldObject, object, variables));
        }
        List<String> denials = new ArrayList<>();
        for (JsonNode validation : spec.path("validations").values()) {
            Object allowed;
            try {
                allowed = eval(validation.path("expression").asString(), request, oldObject, object, variables);
            } catch (IllegalStateException e) {
                allowed = e;
            }
            if (!Boolean.TRUE.equals(allowed)) {
                denials.add(validation.path("message").asString());
            }
        }
        return denials;
    }

    private static Object eval(String expression, Map<String, Object> request, Map<String, Object> oldObject,
            Map<String, Object> object, Map<String, Object> variables) {
        try {
            Map<String, Object> input = new HashMap<>();
            input.put("request", request);
            input.put("variables", variables);
            if (oldObject != null) {
                input.put("oldObject", oldObject);
            }
            if (object != null) {
                input.put("object", object);
            }
            return CEL.createProgram(CEL.compile(expression).getAst()).eval(input);
        } catch (Exception e) {
            throw new IllegalStateException(expression + ": " + e.getMessage(), e);
        }
    }
}
