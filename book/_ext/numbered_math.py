"""Every display formula of the site numbered, as jupyterlab-myst numbers them in JupyterLab.

Sphinx's ``math_number_all`` only reaches formulas written with the ``{math}`` directive;
MyST's ``$$ ... $$`` blocks come out of the parser as ``math_block`` nodes that never pass
through it.  This transform does for them what the directive does (sphinx/directives/
patches.py, ``MathDirective.add_target``): an automatic label, the equation registered with
the math domain (which gives its number) and a target to link to.
"""
from docutils import nodes
from sphinx.transforms import SphinxTransform


class NumberDisplayMath(SphinxTransform):
    default_priority = 200  # before docutils moves targets onto the nodes after them (260)

    def apply(self):
        domain = self.env.get_domain("math")
        for node in list(self.document.findall(nodes.math_block)):
            if node.get("label") or node.get("nowrap"):
                continue  # labelled ones are numbered already; nowrap is raw TeX
            seq = self.env.new_serialno("sphinx.ext.math#equations")
            node["label"] = f"{self.env.docname}:{seq}"
            domain.note_equation(self.env.docname, node["label"], location=node)
            node["number"] = domain.get_equation_number_for(node["label"])
            target = nodes.target("", "", ids=[nodes.make_id(f"equation-{node['label']}")])
            self.document.note_explicit_target(target)
            node.parent.insert(node.parent.index(node), target)


def setup(app):
    app.add_transform(NumberDisplayMath)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
