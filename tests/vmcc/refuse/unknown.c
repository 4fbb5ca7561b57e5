/* expect: unknown.c:6: vmcc refuses: unknown identifier 'undeclared_thing' */
int g;

int main(void)
{
    g = undeclared_thing + 1;
    return g;
}
